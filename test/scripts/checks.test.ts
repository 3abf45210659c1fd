import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { temporaryFolder } from '../support/temporary-folder';

// `npm run checks` (scripts/checks.mjs) on small projects of its own: under .tollgate/, where the repository's own
// type check, lint and formatting check do not look, and from where the repository's node_modules resolve.
const repository = path.resolve(__dirname, '../..');
const script = path.join(repository, 'scripts/checks.mjs');
const fixtures = path.join(repository, '.tollgate');
mkdirSync(fixtures, { recursive: true });

/** A project with tsconfig.json, an ESLint config with a type-aware rule, and `files`. */
function project(files: Record<string, string>): string {
  const folder = temporaryFolder('checks-fixture-', fixtures);
  writeFileSync(
    path.join(folder, 'tsconfig.json'),
    [
      '{',
      '  "compilerOptions": { "strict": true, "target": "ES2022", "module": "commonjs", "lib": ["ES2023"], "types": [] },',
      '  "include": ["*.ts"]',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(folder, 'eslint.config.mjs'),
    [
      "import tseslint from 'typescript-eslint';",
      'export default tseslint.config({',
      "  files: ['**/*.ts'],",
      '  extends: [tseslint.configs.base],',
      "  languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },",
      "  rules: { '@typescript-eslint/no-floating-promises': 'error' },",
      '});',
      '',
    ].join('\n'),
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(folder, name), text);
  return folder;
}

/** What the script printed, without the colours Prettier adds where `CI` or `FORCE_COLOR` is set, even into a pipe. */
const withoutColours = stripVTControlCharacters;

async function checks(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, ...args], { cwd: repository });
    return { code: 0, output: withoutColours(stdout + stderr) };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: withoutColours(failed.stdout + failed.stderr) };
  }
}

describe('npm run checks', () => {
  it('passes a project whose types, lint and formatting are right', async () => {
    const folder = project({ 'work.ts': 'export async function work(): Promise<number> {\n  return 1;\n}\n' });
    const { code, output } = await checks('--root', folder);
    expect(output).toContain('Checks passed: typecheck, lint, prettier.');
    expect(code).toBe(0);
  });

  it('reports a type error, a floating promise (found with the type check’s types) and a badly formatted file', async () => {
    const folder = project({
      'types.ts': "export const count: number = 'three';\n",
      'floating.ts': 'async function work(): Promise<void> {}\nwork();\n',
      'ugly.ts': 'export const  shape = {a:1}\n',
    });
    const { code, output } = await checks('--root', folder);
    expect(code).toBe(1);
    expect(output).toMatch(/types\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'/);
    expect(output).toMatch(
      /floating\.ts\n\s+2:1\s+error\s+Promises must be awaited.*@typescript-eslint\/no-floating-promises/,
    );
    expect(output).toMatch(/\[warn\] ugly\.ts/);
    expect(output).toContain('Checks failed: typecheck, lint, prettier.');
  }, 60_000);

  it('refuses arguments it does not know, and says how to call it', async () => {
    const { code, output } = await checks('--fix');
    expect(code).toBe(1);
    expect(output).toContain(
      'Usage: node scripts/checks.mjs [--root <folder with tsconfig.json and eslint.config.mjs>]',
    );
    expect(output).toContain('Got: --fix');
  });
});
