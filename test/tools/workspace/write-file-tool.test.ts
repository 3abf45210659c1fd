import { execFileSync } from 'node:child_process';
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

  it('refuses to write through a hard link to a file outside the workspace, and leaves that file as it was', async () => {
    fs.linkSync(path.join(workspace.outside, 'secret.txt'), path.join(workspace.root, 'linked.txt'));
    await expect(workspace.call('writeFile', { path: 'linked.txt', content: 'overwritten' })).rejects.toThrow(
      'Cannot write "linked.txt": it is a hard link (the same file has 2 names, which may be outside the workspace)',
    );
    expect(fs.readFileSync(path.join(workspace.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('writes a file that had a second name once that name is gone', async () => {
    workspace.write('a.txt', 'one');
    fs.linkSync(path.join(workspace.root, 'a.txt'), path.join(workspace.root, 'b.txt'));
    await expect(workspace.call('writeFile', { path: 'a.txt', content: 'two' })).rejects.toThrow(/hard link/);
    fs.unlinkSync(path.join(workspace.root, 'b.txt'));
    await expect(workspace.call('writeFile', { path: 'a.txt', content: 'two' })).resolves.toBe(
      'Wrote 3 bytes to a.txt.',
    );
    expect(workspace.read('a.txt')).toBe('two');
  });

  it('writes through a symbolic link that stays inside the workspace', async () => {
    workspace.write('real/target.txt', 'old');
    fs.symlinkSync('real', path.join(workspace.root, 'alias'));
    fs.symlinkSync('target.txt', path.join(workspace.root, 'real', 'pointer.txt'));
    await workspace.call('writeFile', { path: 'alias/pointer.txt', content: 'new' });
    expect(workspace.read('real/target.txt')).toBe('new');
  });

  it('refuses a relative symbolic link that climbs out of the workspace', async () => {
    fs.symlinkSync('../outside', path.join(workspace.root, 'up'));
    await expect(workspace.call('writeFile', { path: 'up/planted.txt', content: 'x' })).rejects.toThrow(
      /is outside the workspace/,
    );
    expect(fs.existsSync(path.join(workspace.outside, 'planted.txt'))).toBe(false);
  });

  it('refuses a named pipe instead of waiting on it forever', async () => {
    execFileSync('mkfifo', [path.join(workspace.root, 'pipe')]);
    await expect(workspace.call('writeFile', { path: 'pipe', content: 'x' })).rejects.toThrow(
      '"pipe" is not a regular file (a pipe, socket or device); the file tools only use regular files.',
    );
    await expect(workspace.call('readFile', { path: 'pipe' })).rejects.toThrow(/"pipe" is not a regular file/);
  });
});
