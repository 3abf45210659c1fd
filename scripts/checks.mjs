// `npm run checks`: the type check, lint and formatting check of a project folder (this repository unless `--root`
// names another), what `npm run typecheck` and `npm run lint` do, for less CPU. ESLint's type-aware rules take their
// types from the very TypeScript program the type check built (typescript-eslint's `parserOptions.programs`), instead
// of building a second one from tsconfig.json: measured here, 59-62 s of CPU for both against 88-91 s apart. Prettier
// runs beside them, in a process of its own. Every check runs to the end; the exit code is 1 when any found a
// problem, and the last line names those.
import { ESLint } from 'eslint';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

const usage = 'Usage: node scripts/checks.mjs [--root <folder with tsconfig.json and eslint.config.mjs>]';

/** The folder to check, from the command line. */
function rootOf(args) {
  if (args.length === 0) return path.resolve(import.meta.dirname, '..');
  if (args.length === 2 && args[0] === '--root') return path.resolve(args[1]);
  throw new Error(`${usage}\nGot: ${args.join(' ')}`);
}

/** `prettier --check .` in `root`, its output kept until the other checks are done. */
function startPrettier(root) {
  const prettier = createRequire(import.meta.url).resolve('prettier/bin/prettier.cjs');
  const child = spawn(process.execPath, [prettier, '--check', '.'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ passed: false, output: `prettier did not start: ${error.message}\n` }));
    child.on('close', (code) => resolve({ passed: code === 0, output }));
  });
}

/** tsconfig.json's program in `root`, and what `tsc -p tsconfig.json --noEmit` would report of it. */
function typeCheck(root) {
  const configPath = path.join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) return { program: undefined, diagnostics: [read.error] };
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configPath);
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: { ...parsed.options, noEmit: true },
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: parsed.errors,
  });
  return { program, diagnostics: ts.getPreEmitDiagnostics(program) };
}

function formatDiagnostics(diagnostics, root) {
  const host = {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  };
  return process.stdout.isTTY
    ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host)
    : ts.formatDiagnostics(diagnostics, host);
}

/**
 * ESLint on `root` as `eslint .` runs it, the `.ts` files' types taken from `program`: the files eslint.config.mjs
 * lints with type information (`parserOptions.project`), all of them in tsconfig.json's program.
 */
async function lint(root, program) {
  const eslint = new ESLint({
    cwd: root,
    ...(program && {
      overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { programs: [program] } } }],
    }),
  });
  const results = await eslint.lintFiles(['.']);
  const formatter = await eslint.loadFormatter('stylish');
  const problems = results.reduce((sum, result) => sum + result.errorCount + result.warningCount, 0);
  return { passed: problems === 0, output: await formatter.format(results) };
}

async function main() {
  const root = rootOf(process.argv.slice(2));
  const prettier = startPrettier(root);
  const failed = [];

  const { program, diagnostics } = typeCheck(root);
  if (diagnostics.length > 0) failed.push('typecheck');
  process.stdout.write(`Type check (tsconfig.json): ${diagnostics.length === 0 ? 'no errors' : 'errors'}.\n`);
  process.stdout.write(formatDiagnostics(diagnostics, root));

  // A program whose tsconfig could not be read is no source of types: lint then builds its own, as configured.
  const linted = await lint(root, program);
  if (!linted.passed) failed.push('lint');
  process.stdout.write(`ESLint: ${linted.passed ? 'no problems' : 'problems'}.\n${linted.output}`);

  const formatted = await prettier;
  if (!formatted.passed) failed.push('prettier');
  process.stdout.write(`Prettier:\n${formatted.output}`);

  if (failed.length > 0) {
    process.stdout.write(`Checks failed: ${failed.join(', ')}.\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write('Checks passed: typecheck, lint, prettier.\n');
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
