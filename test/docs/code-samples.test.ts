import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/** Every file under `folder` whose name ends in one of `extensions`. */
function filesUnder(folder: string, extensions: string[]): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return filesUnder(file, extensions);
    return extensions.some((extension) => name.endsWith(extension)) ? [file] : [];
  });
}

/** A sample's or a source's code lines, without indentation, blank lines, or `// …` lines that stand for omitted code. */
function codeLines(code: string): string[] {
  return (
    code
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length > 0 && !line.startsWith('// …'))
      // A sample imports from `./src/…` as from the repository's root; its example file from `../../../src/…`.
      .map((line) => line.replace(/from '(\.\.\/)+src\//, "from './src/"))
  );
}

/** Whether `sample` appears in `source` in order (the lines an excerpt leaves out may lie between). */
function isExcerptOf(sample: string[], source: string[]): boolean {
  let at = 0;
  for (const line of source) if (at < sample.length && line === sample[at]) at += 1;
  return at === sample.length;
}

const pages = [path.join(root, 'README.md'), ...filesUnder(path.join(root, 'docs'), ['.md'])];
// docs/examples holds the pages' samples; examples/embed is the application "Use Tollgate in your project" walks through.
const examples = [
  ...filesUnder(path.join(root, 'docs/examples'), ['.ts', '.tsx']),
  ...filesUnder(path.join(root, 'examples/embed/src'), ['.ts']),
].map((file) => ({
  file,
  lines: codeLines(readFileSync(file, 'utf8')),
}));
const samples = pages.flatMap((page) =>
  [...readFileSync(page, 'utf8').matchAll(/```tsx?\n([\s\S]*?)```/g)].map((match) => ({
    page: path.relative(root, page),
    lines: codeLines(match[1]!),
  })),
);

describe('the TypeScript samples of README.md and docs/', () => {
  it('exist', () => {
    expect(samples.length).toBeGreaterThanOrEqual(8);
  });

  // docs/examples and examples/embed/src are in tsconfig.json's `include`, so `npm run typecheck` checks every example
  // file (`tollgate` is mapped to src/ there); test/package/consumer.test.ts type-checks examples/embed again as a user
  // would, against the packed package.
  it.each(samples.map((sample, index) => [`${sample.page} #${index + 1}`, sample] as const))(
    '%s is an excerpt of a type-checked example under docs/examples',
    (_name, sample) => {
      const found = examples.find((example) => isExcerptOf(sample.lines, example.lines));
      if (!found)
        throw new Error(
          `No file under docs/examples or examples/embed holds this sample in order:\n${sample.lines.join('\n')}`,
        );
    },
  );
});
