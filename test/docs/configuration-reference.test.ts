import { readFileSync } from 'node:fs';
import path from 'node:path';
import { typeScriptFilesUnder } from '../support/source-files';

const root = path.resolve(__dirname, '../..');

describe('the configuration reference (docs/configuration.md)', () => {
  it('lists every TOLLGATE_* variable the code reads, and none it does not', () => {
    const inCode = new Set(
      typeScriptFilesUnder(path.join(root, 'src')).flatMap(
        (file) => readFileSync(file, 'utf8').match(/TOLLGATE_[A-Z0-9_]+/g) ?? [],
      ),
    );
    const page = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
    const documented = new Set([...page.matchAll(/`(TOLLGATE_[A-Z0-9_]+)`/g)].map((match) => match[1]!));
    expect([...inCode].filter((name) => !documented.has(name)).sort()).toEqual([]);
    expect([...documented].filter((name) => !inCode.has(name)).sort()).toEqual([]);
  });
});
