import fs from 'node:fs';
import path from 'node:path';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

describe('listDir', () => {
  let workspace: TestWorkspace;

  beforeEach(() => {
    workspace = createTestWorkspace();
  });

  afterEach(() => workspace.remove());

  it('lists the workspace by default, sorted, with folders ending in "/"', async () => {
    workspace.write('zeta.txt', '');
    workspace.write('alpha/inner.txt', '');
    workspace.write('beta.md', '');
    await expect(workspace.call('listDir', {})).resolves.toBe('alpha/\nbeta.md\nzeta.txt');
  });

  it('lists a subfolder', async () => {
    workspace.write('src/b.ts', '');
    workspace.write('src/a.ts', '');
    workspace.write('src/nested/c.ts', '');
    await expect(workspace.call('listDir', { path: 'src' })).resolves.toBe('a.ts\nb.ts\nnested/');
  });

  it('says when a folder is empty', async () => {
    fs.mkdirSync(path.join(workspace.root, 'empty'));
    await expect(workspace.call('listDir', { path: 'empty' })).resolves.toBe('[Folder "empty" is empty.]');
  });

  it('caps a long listing and says how many entries there were', async () => {
    const small = createTestWorkspace({ maxOutputBytes: 20 });
    try {
      for (let index = 0; index < 10; index++) small.write(`file-${index}.txt`, '');
      const output = (await small.call('listDir', {})) as string;
      expect(output).toMatch(/^file-0\.txt\n\[Listing capped at 20 bytes: 1 of 10 entries shown/);
    } finally {
      small.remove();
    }
  });

  it('reports a missing folder', async () => {
    await expect(workspace.call('listDir', { path: 'missing' })).rejects.toThrow(/Nothing exists at "missing"/);
  });

  it('refuses a file and points to readFile', async () => {
    workspace.write('a.txt', 'a');
    await expect(workspace.call('listDir', { path: 'a.txt' })).rejects.toThrow(
      '"a.txt" is a file, not a folder; use readFile to read it.',
    );
  });

  it('refuses a path that escapes the workspace with ..', async () => {
    await expect(workspace.call('listDir', { path: '..' })).rejects.toThrow(/Path "\.\." is outside the workspace/);
  });

  it('refuses to list through a symbolic link that points outside the workspace', async () => {
    fs.symlinkSync(workspace.outside, path.join(workspace.root, 'elsewhere'));
    await expect(workspace.call('listDir', {})).resolves.toBe('elsewhere/');
    await expect(workspace.call('listDir', { path: 'elsewhere' })).rejects.toThrow(/is outside the workspace/);
  });
});
