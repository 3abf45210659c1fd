import fs from 'node:fs';
import path from 'node:path';
import { maxGlobResults } from '../../../src/tools/workspace/glob-tool';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

describe('glob', () => {
  let workspace: TestWorkspace;

  beforeEach(() => {
    workspace = createTestWorkspace();
    workspace.write('README.md', '');
    workspace.write('src/index.ts', '');
    workspace.write('src/tools/define-tool.ts', '');
    workspace.write('src/tools/data.json', '');
    workspace.write('node_modules/lib/index.ts', '');
    workspace.write('.git/hooks/pre-commit.ts', '');
  });

  afterEach(() => workspace.remove());

  it('finds files at any depth with **, sorted, relative to the workspace', async () => {
    await expect(workspace.call('glob', { pattern: '**/*.ts' })).resolves.toBe(
      'src/index.ts\nsrc/tools/define-tool.ts',
    );
  });

  it('matches * within one folder only', async () => {
    await expect(workspace.call('glob', { pattern: '*.md' })).resolves.toBe('README.md');
    await expect(workspace.call('glob', { pattern: 'src/*.ts' })).resolves.toBe('src/index.ts');
  });

  it('matches against paths under the given folder and returns them relative to the workspace', async () => {
    await expect(workspace.call('glob', { pattern: '*.{ts,json}', path: 'src/tools' })).resolves.toBe(
      'src/tools/data.json\nsrc/tools/define-tool.ts',
    );
  });

  it('matches one character with ?', async () => {
    workspace.write('a1.txt', '');
    workspace.write('a22.txt', '');
    await expect(workspace.call('glob', { pattern: 'a?.txt' })).resolves.toBe('a1.txt');
  });

  it('skips node_modules and .git', async () => {
    const output = (await workspace.call('glob', { pattern: '**' })) as string;
    expect(output).not.toMatch(/node_modules|\.git/);
    expect(output.split('\n')).toHaveLength(4);
  });

  it('says when nothing matches', async () => {
    await expect(workspace.call('glob', { pattern: '**/*.py' })).resolves.toBe(
      '[No files match "**/*.py" under "."; try another pattern or path.]',
    );
  });

  it(`caps the result at ${maxGlobResults} files and says so`, async () => {
    for (let index = 0; index <= maxGlobResults; index++) workspace.write(`many/file-${index}.txt`, '');
    const output = (await workspace.call('glob', { pattern: 'many/*.txt' })) as string;
    const lines = output.split('\n');
    expect(lines).toHaveLength(maxGlobResults + 1);
    expect(lines.at(-1)).toBe(
      `[Capped: showing ${maxGlobResults} files; use a narrower pattern or path to see the rest.]`,
    );
  });

  it('does not follow a symbolic link out of the workspace', async () => {
    fs.symlinkSync(workspace.outside, path.join(workspace.root, 'elsewhere'));
    await expect(workspace.call('glob', { pattern: '**/secret.txt' })).resolves.toMatch(/^\[No files match/);
  });

  it('refuses a search folder outside the workspace', async () => {
    await expect(workspace.call('glob', { pattern: '*', path: '../outside' })).rejects.toThrow(
      /Path "\.\.\/outside" is outside the workspace/,
    );
  });

  it('refuses an absolute pattern and says to give a relative one', async () => {
    await expect(workspace.call('glob', { pattern: '/etc/*' })).rejects.toThrow(
      'Glob "/etc/*" is absolute; give a pattern relative to path, such as "**/*.ts".',
    );
  });
});
