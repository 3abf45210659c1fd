import fs from 'node:fs';
import path from 'node:path';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

describe('writeFile', () => {
  let workspace: TestWorkspace;

  beforeEach(() => {
    workspace = createTestWorkspace();
  });

  afterEach(() => workspace.remove());

  it('creates the file and its folders and confirms with the byte count', async () => {
    await expect(workspace.call('writeFile', { path: 'src/deep/new.ts', content: 'héllo\n' })).resolves.toBe(
      'Wrote 7 bytes to src/deep/new.ts.',
    );
    expect(workspace.read('src/deep/new.ts')).toBe('héllo\n');
  });

  it('replaces an existing file', async () => {
    workspace.write('notes.md', 'old content that is longer');
    await workspace.call('writeFile', { path: 'notes.md', content: 'new' });
    expect(workspace.read('notes.md')).toBe('new');
  });

  it('gives the same result when a retry writes the same content again', async () => {
    const input = { path: 'retry.txt', content: 'same\n' };
    const first = await workspace.call('writeFile', input);
    const second = await workspace.call('writeFile', input);
    expect(second).toBe(first);
    expect(workspace.read('retry.txt')).toBe('same\n');
  });

  it('refuses to write over a folder', async () => {
    workspace.write('src/a.ts', '');
    await expect(workspace.call('writeFile', { path: 'src', content: 'x' })).rejects.toThrow(/"src" is a folder/);
  });

  it('refuses a path that escapes the workspace with ..', async () => {
    await expect(workspace.call('writeFile', { path: '../outside/planted.txt', content: 'x' })).rejects.toThrow(
      `Path "../outside/planted.txt" is outside the workspace (${workspace.root}); use a path inside it.`,
    );
    expect(fs.existsSync(path.join(workspace.outside, 'planted.txt'))).toBe(false);
  });

  it('refuses an absolute path outside the workspace', async () => {
    const target = path.join(workspace.outside, 'planted.txt');
    await expect(workspace.call('writeFile', { path: target, content: 'x' })).rejects.toThrow(
      /is outside the workspace/,
    );
    expect(fs.existsSync(target)).toBe(false);
  });

  it('refuses to write through a symbolic link that points outside the workspace', async () => {
    fs.symlinkSync(workspace.outside, path.join(workspace.root, 'elsewhere'));
    fs.symlinkSync(path.join(workspace.outside, 'dangling.txt'), path.join(workspace.root, 'dangling.txt'));
    await expect(workspace.call('writeFile', { path: 'elsewhere/secret.txt', content: 'x' })).rejects.toThrow(
      /is outside the workspace/,
    );
    await expect(workspace.call('writeFile', { path: 'dangling.txt', content: 'x' })).rejects.toThrow(
      /is outside the workspace/,
    );
    expect(fs.readFileSync(path.join(workspace.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
    expect(fs.existsSync(path.join(workspace.outside, 'dangling.txt'))).toBe(false);
  });
});
