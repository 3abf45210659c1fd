import fs from 'node:fs';
import path from 'node:path';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

describe('readFile', () => {
  let workspace: TestWorkspace;

  beforeEach(() => {
    workspace = createTestWorkspace({ maxOutputBytes: 64 });
  });

  afterEach(() => workspace.remove());

  it('returns the text of a file', async () => {
    workspace.write('src/hello.ts', 'export const hello = 1;\n');
    await expect(workspace.call('readFile', { path: 'src/hello.ts' })).resolves.toBe('export const hello = 1;\n');
  });

  it('returns the lines from offset, at most limit of them, and says how to read on', async () => {
    workspace.write('lines.txt', 'one\ntwo\nthree\nfour\n');
    await expect(workspace.call('readFile', { path: 'lines.txt', offset: 2, limit: 2 })).resolves.toBe(
      'two\nthree\n[Lines 2-3 of 4; call readFile with offset 4 to read on.]',
    );
    await expect(workspace.call('readFile', { path: 'lines.txt', offset: 4 })).resolves.toBe('four\n');
  });

  it('caps a long file at maxOutputBytes on a line boundary and says where to continue', async () => {
    const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
    workspace.write('long.txt', `${lines.join('\n')}\n`);
    const output = (await workspace.call('readFile', { path: 'long.txt' })) as string;
    const [shown, note] = output.split('[');
    expect(Buffer.byteLength(shown as string)).toBeLessThanOrEqual(64);
    expect(shown).toMatch(/^line 1\nline 2\n.*\n$/s);
    expect(note).toMatch(/^Output capped at 64 bytes: lines 1-\d+ of 20; call readFile with offset \d+ to read on.]$/);
    const nextOffset = Number(/offset (\d+)/.exec(note as string)?.[1]);
    expect(shown?.split('\n').length).toBe(nextOffset);
  });

  it('says when a file is empty', async () => {
    workspace.write('empty.txt', '');
    await expect(workspace.call('readFile', { path: 'empty.txt' })).resolves.toBe('[File "empty.txt" is empty.]');
  });

  it('refuses an offset past the end of the file', async () => {
    workspace.write('short.txt', 'a\nb\n');
    await expect(workspace.call('readFile', { path: 'short.txt', offset: 5 })).rejects.toThrow(
      '"short.txt" has 2 lines; offset 5 is past the end, use an offset from 1 to 2.',
    );
  });

  it('reports a missing file and suggests how to find the right one', async () => {
    await expect(workspace.call('readFile', { path: 'nope.txt' })).rejects.toThrow(
      'Nothing exists at "nope.txt"; use listDir or glob to find the right path.',
    );
  });

  it('refuses a binary file', async () => {
    workspace.write('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    await expect(workspace.call('readFile', { path: 'image.png' })).rejects.toThrow(
      'File "image.png" is binary, not text; this tool only reads text files.',
    );
  });

  it('refuses a folder and points to listDir', async () => {
    workspace.write('src/a.ts', '');
    await expect(workspace.call('readFile', { path: 'src' })).rejects.toThrow(/"src" is a folder.*use listDir/);
  });

  it('refuses a path that escapes the workspace with ..', async () => {
    await expect(workspace.call('readFile', { path: '../outside/secret.txt' })).rejects.toThrow(
      `Path "../outside/secret.txt" is outside the workspace (${workspace.root}); use a path inside it.`,
    );
  });

  it('refuses an absolute path outside the workspace', async () => {
    await expect(workspace.call('readFile', { path: path.join(workspace.outside, 'secret.txt') })).rejects.toThrow(
      /is outside the workspace/,
    );
  });

  it('refuses to read through a symbolic link that points outside the workspace', async () => {
    fs.symlinkSync(path.join(workspace.outside, 'secret.txt'), path.join(workspace.root, 'innocent.txt'));
    await expect(workspace.call('readFile', { path: 'innocent.txt' })).rejects.toThrow(
      /"innocent.txt" is outside the workspace/,
    );
  });
});
