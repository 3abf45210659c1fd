import { WorkflowCoverage } from '@temporalio/nyc-test-coverage';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer } from '../../src/dev/dev-server';
import { tollgateSearchAttributes } from '../../src/dev/search-attributes';
import { tollgateWorkflowBundleOptions } from '../../src/worker';
import { testLogFolder } from './test-logs';

// One dev server and one workflow bundle for the whole run: starting and bundling are the slow parts.
export default async function globalSetup(globalConfig?: { collectCoverage?: boolean }): Promise<void> {
  const folder = path.resolve(__dirname, '../../.tollgate/test');
  mkdirSync(folder, { recursive: true });
  // The server's output goes to a file, so that the test output shows test names and failures only.
  mkdirSync(testLogFolder, { recursive: true });
  const serverLog = path.join(testLogFolder, 'temporal-server.log');
  writeFileSync(serverLog, '');
  const coverage = globalConfig?.collectCoverage === true;
  const [server, bundle] = await Promise.all([
    startDevServer({
      searchAttributes: tollgateSearchAttributes,
      log: (line) => appendFileSync(serverLog, `${line}\n`),
    }),
    bundleWorkflowCode(workflowBundleOptions(coverage)),
  ]);
  // One bundle per run, so that runs side by side never read each other's half-written file.
  const bundlePath = path.join(folder, `workflow-bundle-${process.pid}.js`);
  writeFileSync(bundlePath, bundle.code);
  process.env.TOLLGATE_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.TOLLGATE_TEST_WORKFLOW_BUNDLE = bundlePath;
  // Tells test/support/workflow-coverage.ts that the bundle reports coverage (through a sink).
  if (coverage) process.env.TOLLGATE_TEST_WORKFLOW_COVERAGE = '1';
  else delete process.env.TOLLGATE_TEST_WORKFLOW_COVERAGE;
  (globalThis as { tollgateTestServer?: { stop(): Promise<void> } }).tollgateTestServer = server;
}

/**
 * With `--coverage`, the bundle is instrumented by Temporal's `@temporalio/nyc-test-coverage` (an istanbul loader,
 * and an interceptor that hands the sandbox's counters to the `coverage` sink after every activation). Workflow
 * code runs only from this bundle, inside the worker's sandbox, so Jest's own instrumentation never sees it.
 * Without `--coverage` the bundle is the plain one: a plain `npm test` pays nothing.
 */
function workflowBundleOptions(coverage: boolean): BundleOptions {
  // The bundle a Tollgate worker builds for itself: workflow modules preloaded, shared by every workflow.
  const options = { ...tollgateWorkflowBundleOptions(), logger: quietLogger };
  if (!coverage) return options;
  // Instrumented, the modules are not preloaded: a preloaded module is shared and frozen, and so would be
  // istanbul's counters in it ("Cannot assign to read only property"); loaded per workflow, they count.
  delete (options as Partial<BundleOptions>).preloadModules;
  // WorkflowCoverage instruments only where an istanbul counter object exists (as in Jest's test files); the
  // global set-up runs outside them, so give it one while the options are made.
  const scope = globalThis as { __coverage__?: unknown };
  const hadCounters = '__coverage__' in scope;
  if (!hadCounters) scope.__coverage__ = {};
  try {
    const workflowCoverage = new WorkflowCoverage();
    const augmented = workflowCoverage.augmentBundleOptions(options);
    const hook = augmented.webpackConfigHook;
    // The hook checks for the counter object again when webpack calls it.
    return {
      ...augmented,
      webpackConfigHook: (config) => {
        if ('__coverage__' in scope) return hook ? hook(config) : config;
        scope.__coverage__ = {};
        try {
          return hook ? hook(config) : config;
        } finally {
          delete scope.__coverage__;
        }
      },
    };
  } finally {
    if (!hadCounters) delete scope.__coverage__;
  }
}

const quietLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
  log: () => undefined,
};
