import fs from 'node:fs';
import path from 'node:path';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

describe('editFile', () => {
  let workspace: TestWorkspace;

  beforeEach(() => {
    workspace = createTestWorkspace();
    workspace.write('app.ts', 'const port = 3000;\nconst host = "localhost";\n');
  });

  afterEach(() => workspace.remove());

  it('replaces the one occurrence of oldText and confirms', async () => {
    await expect(
      workspace.call('editFile', { path: 'app.ts', oldText: 'port = 3000', newText: 'port = 8080' }),
    ).resolves.toBe('Edited app.ts: replaced 1 occurrence (45 bytes now).');
    expect(workspace.read('app.ts')).toBe('const port = 8080;\nconst host = "localhost";\n');
  });

  it('reports a retried edit as already applied instead of failing', async () => {
    const input = { path: 'app.ts', oldText: 'port = 3000', newText: 'port = 8080' };
    await workspace.call('editFile', input);
    await expect(workspace.call('editFile', input)).resolves.toBe(
      'Edit already applied to app.ts: newText is there once and oldText is gone; file unchanged.',
    );
    expect(workspace.read('app.ts')).toBe('const port = 8080;\nconst host = "localhost";\n');
  });

  it('refuses oldText that is not in the file, saying 0 were found', async () => {
    await expect(
      workspace.call('editFile', { path: 'app.ts', oldText: 'port = 4000', newText: 'port = 8080' }),
    ).rejects.toThrow(
      'oldText was not found in "app.ts" (0 occurrences); read the file with readFile and copy the text exactly, ' +
        'including whitespace and indentation.',
    );
  });

  it('refuses oldText that occurs twice, saying how many were found, and leaves the file alone', async () => {
    await expect(workspace.call('editFile', { path: 'app.ts', oldText: 'const', newText: 'let' })).rejects.toThrow(
      'oldText occurs 2 times in "app.ts"; it must occur exactly once, so include more surrounding lines in ' +
        'oldText to make it unique.',
    );
    expect(workspace.read('app.ts')).toBe('const port = 3000;\nconst host = "localhost";\n');
  });

  it('does not call an edit applied when newText is present but the file is not what the edit produces', async () => {
    workspace.write('app.ts', 'port = 8080;\nport = 8080;\n');
    await expect(
      workspace.call('editFile', { path: 'app.ts', oldText: 'port = 3000', newText: 'port = 8080' }),
    ).rejects.toThrow(/0 occurrences/);
  });

  it('reports a missing file', async () => {
    await expect(workspace.call('editFile', { path: 'missing.ts', oldText: 'a', newText: 'b' })).rejects.toThrow(
      'Nothing exists at "missing.ts"; use listDir or glob to find the right path.',
    );
  });

  it('refuses a path that escapes the workspace with ..', async () => {
    await expect(
      workspace.call('editFile', { path: '../outside/secret.txt', oldText: 'top', newText: 'no' }),
    ).rejects.toThrow(/is outside the workspace/);
    expect(fs.readFileSync(path.join(workspace.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('refuses to edit through a symbolic link that points outside the workspace', async () => {
    fs.symlinkSync(path.join(workspace.outside, 'secret.txt'), path.join(workspace.root, 'linked.txt'));
    await expect(workspace.call('editFile', { path: 'linked.txt', oldText: 'top', newText: 'no' })).rejects.toThrow(
      /is outside the workspace/,
    );
    expect(fs.readFileSync(path.join(workspace.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('refuses to edit through a hard link to a file outside the workspace', async () => {
    fs.linkSync(path.join(workspace.outside, 'secret.txt'), path.join(workspace.root, 'hard.txt'));
    await expect(workspace.call('editFile', { path: 'hard.txt', oldText: 'top', newText: 'no' })).rejects.toThrow(
      /Cannot write "hard.txt": it is a hard link/,
    );
    expect(fs.readFileSync(path.join(workspace.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });
});
