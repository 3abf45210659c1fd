import fs from 'node:fs';
import path from 'node:path';
import { maxGrepMatches } from '../../../src/tools/workspace/grep-tool';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

describe('grep', () => {
  let workspace: TestWorkspace;

  beforeEach(() => {
    workspace = createTestWorkspace();
    workspace.write('src/a.ts', 'const one = 1;\nexport function createTool() {}\n');
    workspace.write('src/nested/b.ts', 'export function createOther() {}\n');
    workspace.write('docs/guide.md', 'Call createTool first.\n');
    workspace.write('node_modules/lib/index.ts', 'export function createTool() {}\n');
  });

  afterEach(() => workspace.remove());

  it('returns matching lines as file:line: text, relative to the workspace', async () => {
    await expect(workspace.call('grep', { pattern: 'function create\\w+' })).resolves.toBe(
      'src/a.ts:2: export function createTool() {}\nsrc/nested/b.ts:1: export function createOther() {}',
    );
  });

  it('filters files by name at any depth with a glob without "/"', async () => {
    await expect(workspace.call('grep', { pattern: 'createTool', glob: '*.md' })).resolves.toBe(
      'docs/guide.md:1: Call createTool first.',
    );
  });

  it('searches only under the given path', async () => {
    await expect(workspace.call('grep', { pattern: 'export', path: 'src/nested' })).resolves.toBe(
      'src/nested/b.ts:1: export function createOther() {}',
    );
  });

  it('searches a single file when path is a file', async () => {
    await expect(workspace.call('grep', { pattern: 'const', path: 'src/a.ts' })).resolves.toBe(
      'src/a.ts:1: const one = 1;',
    );
  });

  it('skips binary files and node_modules', async () => {
    workspace.write('blob.bin', Buffer.concat([Buffer.from('createTool'), Buffer.from([0, 1, 2])]));
    const output = (await workspace.call('grep', { pattern: 'createTool' })) as string;
    expect(output).not.toMatch(/blob\.bin|node_modules/);
  });

  it('says when nothing matches', async () => {
    await expect(workspace.call('grep', { pattern: 'nothing-here' })).resolves.toBe(
      '[No matches for /nothing-here/ under "."; try a broader pattern or another path.]',
    );
  });

  it(`caps the result at ${maxGrepMatches} lines and says so`, async () => {
    workspace.write('many.txt', 'hit\n'.repeat(maxGrepMatches + 5));
    const output = (await workspace.call('grep', { pattern: '^hit$', path: 'many.txt' })) as string;
    const lines = output.split('\n');
    expect(lines).toHaveLength(maxGrepMatches + 1);
    expect(lines.at(-1)).toMatch(/^\[Capped: showing the first 200 matching lines; use a narrower pattern/);
  });

  it('refuses an invalid regular expression and says how to fix it', async () => {
    await expect(workspace.call('grep', { pattern: 'createTool(' })).rejects.toThrow(
      /^Invalid regular expression "createTool\(" \(.*Unterminated group\); .*escape special characters/,
    );
  });

  it('refuses a path that escapes the workspace with ..', async () => {
    await expect(workspace.call('grep', { pattern: 'secret', path: '../outside' })).rejects.toThrow(
      /is outside the workspace/,
    );
  });

  it('does not follow a symbolic link out of the workspace', async () => {
    fs.symlinkSync(workspace.outside, path.join(workspace.root, 'elsewhere'));
    fs.symlinkSync(path.join(workspace.outside, 'secret.txt'), path.join(workspace.root, 'secret-link.txt'));
    await expect(workspace.call('grep', { pattern: 'top secret' })).resolves.toMatch(/^\[No matches/);
    await expect(workspace.call('grep', { pattern: 'top secret', path: 'secret-link.txt' })).rejects.toThrow(
      /is outside the workspace/,
    );
  });
});
