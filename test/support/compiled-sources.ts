// `src/` and `test/support/`, compiled once per run for the child processes tests start: the `tollgate` command, test
// worker processes, the dev stacks and the worker and gateway entry points.
//
// A child process started through tsx spends about 0.8 s of CPU before it runs a line of its own (tsx's hooks, its
// transform cache, source maps for every module it loads): as much again as the compiled command needs in all. The
// suite starts such children by the hundred (every CLI call, every worker a test kills), so the global set-up
// transpiles `src/` and `test/support/` once, with esbuild, into `.tollgate/test/js/` (same tree, `.js` files), and
// those children run plain Node on it. Starting through tsx, as a checkout's `npm run dev` does, is tested where it is
// the point (test/dev/dev-runner.test.ts); `bin/tollgate.js` is run as a user runs it.
import { build } from 'esbuild';
import { cpSync, existsSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';

const repository = path.resolve(__dirname, '../..');
/** Set by the global set-up to the folder the sources were compiled into. */
const compiledVariable = 'TOLLGATE_TEST_COMPILED_SOURCES';
/** The trees compiled, relative to the repository. */
const compiledTrees = ['src', 'test/support'];

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return sourcesUnder(file);
    return /\.(ts|js)$/.test(name) && !/\.(d|test)\.ts$/.test(name) ? [file] : [];
  });
}

/** The source files of `src/` and `test/support/` that tests load (test files and declarations left out). */
export function compiledSourceFiles(): string[] {
  return compiledTrees.flatMap((tree) => sourcesUnder(path.join(repository, tree)));
}

/**
 * Compiles `src/` and `test/support/` into `folder` (replacing what is there) and tells the test files where, through
 * the environment Jest's workers inherit. Files the compiled code finds beside itself come along: the sandbox's
 * network launcher and resolv.conf are copied, and `examples/` (which the dev runner bundles from) is linked at the
 * same depth.
 */
export async function compileSourcesForChildProcesses(folder: string): Promise<void> {
  rmSync(folder, { recursive: true, force: true });
  await build({
    entryPoints: compiledSourceFiles(),
    outdir: folder,
    outbase: repository,
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // `import()` becomes a `require`, as tsc makes it for dist/ (module commonjs) and Jest's transform does.
    supported: { 'dynamic-import': false },
    logLevel: 'silent',
  });
  // The files package.json's `build` copies into dist/ beside the compiled code: the two lists go together.
  for (const asset of ['outbound-network.sh', 'sandbox-resolv.conf']) {
    const file = path.join('src/tools/workspace', asset);
    cpSync(path.join(repository, file), path.join(folder, file));
  }
  if (!existsSync(path.join(folder, 'examples')))
    symlinkSync(path.join(repository, 'examples'), path.join(folder, 'examples'));
  process.env[compiledVariable] = folder;
}

/** The compiled counterpart of a source file of this repository (`src/cli/main.ts`), for `node` to run. */
export function compiledSource(file: string): string {
  const folder = process.env[compiledVariable];
  if (!folder) throw new Error(`${compiledVariable} is not set: run the tests with jest.`);
  const relative = path.relative(repository, path.resolve(repository, file));
  if (!compiledTrees.some((tree) => relative.startsWith(`${tree}${path.sep}`))) {
    throw new Error(`${file} is not compiled for child processes (only ${compiledTrees.join(' and ')} are).`);
  }
  return path.join(folder, relative.replace(/\.ts$/, '.js'));
}
