import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { appendFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer } from '../../src/dev/dev-server';
import { tollgateSearchAttributes } from '../../src/dev/search-attributes';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { quietBundlerLogger } from '../../src/workflow-bundle-cache';
import { tollgateWorkflowBundleOptions } from '../../src/workflow-bundle-options';
import { compiledSourceFiles, compileSourcesForChildProcesses } from './compiled-sources';
import { countersOnlyRunVariable, installFastCoverageMerge, reportersCoverageClasses } from './fast-coverage-merge';
import { testLogFolder } from './test-logs';
import { warmTransformsInThread } from './warm-transforms';

// One dev server and one workflow bundle for the whole run: starting and bundling are the slow parts.
export default async function globalSetup(
  globalConfig?: { collectCoverage?: boolean },
  projectConfig?: object,
): Promise<void> {
  const folder = path.resolve(__dirname, '../../.tollgate/test');
  mkdirSync(folder, { recursive: true });
  // The server's output goes to a file, so that the test output shows test names and failures only.
  mkdirSync(testLogFolder, { recursive: true });
  const serverLog = path.join(testLogFolder, 'temporal-server.log');
  writeFileSync(serverLog, '');
  const coverage = globalConfig?.collectCoverage === true;
  const log = (line: string) => appendFileSync(serverLog, `${line}\n`);
  const temporalCli = await resolveTemporalCli({ log });
  putTemporalCliFirstOnPath(temporalCli.path, folder);
  const [server, bundle] = await Promise.all([
    startDevServer({ searchAttributes: tollgateSearchAttributes, log, temporalCliPath: temporalCli.path }),
    bundleWorkflowCode(workflowBundleOptions(coverage)),
    // One folder per run, as for the bundle below.
    compileSourcesForChildProcesses(path.join(folder, `js-${process.pid}`)),
    // Jest's transform cache, filled once for the test files' workers (test/support/warm-transforms.js).
    globalConfig && projectConfig ? warmTransformsBeside(globalConfig, projectConfig) : undefined,
  ]);
  // One bundle per run, so that runs side by side never read each other's half-written file.
  const bundlePath = path.join(folder, `workflow-bundle-${process.pid}.js`);
  writeFileSync(bundlePath, bundle.code);
  process.env.TOLLGATE_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.TOLLGATE_TEST_WORKFLOW_BUNDLE = bundlePath;
  // Where the run's `npm run dev` starts share the bundle the first of them made (test/support/dev-stack.ts).
  process.env.TOLLGATE_TEST_DEV_STACK_BUNDLES = path.join(folder, `dev-stack-bundles-${process.pid}`);
  // Tells test/support/workflow-coverage/sink.ts that the bundle reports coverage, and where the records are.
  if (coverage) process.env.TOLLGATE_TEST_WORKFLOW_COVERAGE_TEMPLATES = writeCoverageTemplates(bundlePath);
  else delete process.env.TOLLGATE_TEST_WORKFLOW_COVERAGE_TEMPLATES;
  // Jest's process merges each test file's coverage as it comes: by adding counters where it can, so that Jest's
  // workers can send a file's maps once a run and its counters after (fast-coverage-merge.ts).
  if (coverage) {
    installFastCoverageMerge(...reportersCoverageClasses());
    process.env[countersOnlyRunVariable] = `${process.pid}-${Date.now()}`;
  } else delete process.env[countersOnlyRunVariable];
  (globalThis as { tollgateTestServer?: { stop(): Promise<void> } }).tollgateTestServer = server;
}

/**
 * Puts the Temporal CLI this set-up found (through the user's PATH, `TEMPORAL_CLI_PATH` or pip's scripts folder, as
 * `npm run dev` finds it) first on the run's PATH, alone in a folder of its own, for every test file and child process
 * after it. Each test file and each `npm run dev` a test starts looks for the CLI again (a test file's modules are
 * its own), and under pyenv a search through the shim is about 90 processes and 0.3 s of CPU (the shim, `pyenv
 * which`, the binary's `--version` twice): some seventy searches a run. The search itself, shims included, is tested
 * in test/dev/temporal-cli.test.ts, which sets PATH itself.
 */
function putTemporalCliFirstOnPath(cli: string, folder: string): void {
  const bin = path.join(folder, `temporal-cli-${process.pid}`);
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin, { recursive: true });
  symlinkSync(cli, path.join(bin, path.basename(cli)));
  process.env.PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
  process.env.TOLLGATE_TEST_TEMPORAL_CLI_BIN = bin;
}

/**
 * Fills Jest's transform cache with the run's TypeScript sources, in a thread beside the bundling. A failure only means
 * the test files' workers transform more themselves, so it is a warning.
 */
async function warmTransformsBeside(globalConfig: object, projectConfig: object): Promise<void> {
  const files = compiledSourceFiles().filter((file) => file.endsWith('.ts'));
  const result = await warmTransformsInThread(globalConfig, projectConfig, files);
  if ('error' in result) {
    console.warn(`Jest's transform cache was not filled ahead of the test files: ${result.error}`);
    return;
  }
  // For test/support/test-runtime.js, which checks that Jest's runtime transforms with the same options.
  process.env.TOLLGATE_TEST_WARMED_TRANSFORM_OPTIONS = result.options;
}

/**
 * With `--coverage`, the bundle is instrumented with istanbul (workflow-coverage/instrument-loader.js, which keeps
 * each module's empty coverage record for the template file) and carries an interceptor that sends the counters
 * that moved after every activation (workflow-coverage/sandbox-interceptor.ts). Workflow code runs only from this
 * bundle, inside the worker's sandbox, so Jest's own instrumentation never sees it. Without `--coverage` the bundle
 * is the plain one: a plain `npm test` pays nothing.
 */
function workflowBundleOptions(coverage: boolean): BundleOptions {
  // The bundle a Tollgate worker builds for itself: workflow modules preloaded, shared by every workflow.
  const tollgate = tollgateWorkflowBundleOptions();
  const options: BundleOptions = { ...tollgate, logger: quietBundlerLogger };
  if (!coverage) return options;
  // Preloaded as in production: the instrumented modules keep their counters in typed arrays, which the reusable
  // context's freezing cannot freeze (instrument-loader.js).
  const notInstrumented = [
    /[/\\]node_modules[/\\]/,
    path.dirname(require.resolve('@temporalio/common')),
    path.dirname(require.resolve('@temporalio/workflow')),
    path.join(__dirname, 'workflow-coverage'),
  ];
  return {
    ...options,
    workflowInterceptorModules: [require.resolve('./workflow-coverage/sandbox-interceptor')],
    // Tollgate's own hook first (the syntax the code is compiled to), as a user with a hook of their own does.
    webpackConfigHook: (config) => {
      const compiled = tollgate.webpackConfigHook(config);
      return {
        ...compiled,
        module: {
          ...compiled.module,
          rules: [
            ...(compiled.module?.rules ?? []),
            { use: { loader: instrumentLoader }, enforce: 'post', test: /\.[tj]s$/, exclude: notInstrumented },
          ],
        },
      };
    },
  };
}

/** The instrumenting loader's empty coverage records, written beside the bundle for each test file's sink. */
function writeCoverageTemplates(bundlePath: string): string {
  // The loader is plain CommonJS that webpack requires: the same module instance, so the same name.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { templatesGlobal } = require(instrumentLoader) as { templatesGlobal: string };
  const templates = (globalThis as Record<string, unknown>)[templatesGlobal];
  if (!templates) throw new Error('The workflow bundle was not instrumented: no coverage records were kept.');
  const file = bundlePath.replace(/\.js$/, '.coverage-templates.json');
  writeFileSync(file, JSON.stringify(templates));
  delete (globalThis as Record<string, unknown>)[templatesGlobal];
  return file;
}

const instrumentLoader = require.resolve('./workflow-coverage/instrument-loader.js');
