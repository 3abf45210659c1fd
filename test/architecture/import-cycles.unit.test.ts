import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { typeScriptFilesUnder } from '../support/source-files';

const repositoryRoot = path.resolve(__dirname, '../..');
/**
 * The folders whose imports must form no circle: the product, the benchmark, the tests, the docs' samples and the
 * examples. This is the one check of import circles: lint's `import/no-cycle` (eslint-plugin-import) did the same for
 * src alone and took a fifth of lint's CPU (14 of 66 s), reading every file's import graph again.
 */
const checkedFolders = ['src', 'bench', 'test', 'docs', 'examples'].map((folder) => path.join(repositoryRoot, folder));

/** The project files `file` imports or re-exports, type-only imports included. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles.flatMap(({ fileName }) => {
    if (!fileName.startsWith('.')) return [];
    const base = path.resolve(path.dirname(file), fileName);
    const found = [`${base}.ts`, path.join(base, 'index.ts'), base].find(
      (candidate) => candidate.endsWith('.ts') && existsSync(candidate),
    );
    return found ? [found] : [];
  });
}

/** Groups of files that import each other in a circle (strongly connected components of more than one file). */
function importCircles(files: string[]): string[][] {
  const edges = new Map(files.map((file) => [file, importsOf(file)]));
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    lowLink.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        lowLink.set(file, Math.min(lowLink.get(file) as number, lowLink.get(target) as number));
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file) as number, index.get(target) as number));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      circle.push(path.relative(repositoryRoot, member));
    } while (member !== file);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}

describe('imports in src, bench, test, docs and examples', () => {
  it('form no circle, counting type-only imports', () => {
    expect(importCircles(checkedFolders.flatMap(typeScriptFilesUnder))).toEqual([]);
  });
});
