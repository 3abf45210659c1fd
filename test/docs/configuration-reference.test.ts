import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/** Every file under `folder` whose name ends in `.ts`. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return name.endsWith('.ts') ? [file] : [];
  });
}

describe('the configuration reference (docs/configuration.md)', () => {
  it('lists every TOLLGATE_* variable the code reads, and none it does not', () => {
    const inCode = new Set(
      sourceFiles(path.join(root, 'src')).flatMap(
        (file) => readFileSync(file, 'utf8').match(/TOLLGATE_[A-Z0-9_]+/g) ?? [],
      ),
    );
    const page = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
    const documented = new Set([...page.matchAll(/`(TOLLGATE_[A-Z0-9_]+)`/g)].map((match) => match[1]!));
    expect([...inCode].filter((name) => !documented.has(name)).sort()).toEqual([]);
    expect([...documented].filter((name) => !inCode.has(name)).sort()).toEqual([]);
  });
});
