import { bundleWorkflowCode } from '@temporalio/worker';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer } from '../../src/dev/dev-server';
import { tollgateSearchAttributes } from '../../src/dev/search-attributes';
import { testLogFolder } from './test-logs';

// One dev server and one workflow bundle for the whole run: starting and bundling are the slow parts.
export default async function globalSetup(): Promise<void> {
  const folder = path.resolve(__dirname, '../../.tollgate/test');
  mkdirSync(folder, { recursive: true });
  // The server's output goes to a file, so that the test output shows test names and failures only.
  mkdirSync(testLogFolder, { recursive: true });
  const serverLog = path.join(testLogFolder, 'temporal-server.log');
  writeFileSync(serverLog, '');
  const [server, bundle] = await Promise.all([
    startDevServer({
      searchAttributes: tollgateSearchAttributes,
      log: (line) => appendFileSync(serverLog, `${line}\n`),
    }),
    bundleWorkflowCode({ workflowsPath: require.resolve('../../src/workflows'), logger: quietLogger }),
  ]);
  // One bundle per run, so that runs side by side never read each other's half-written file.
  const bundlePath = path.join(folder, `workflow-bundle-${process.pid}.js`);
  writeFileSync(bundlePath, bundle.code);
  process.env.TOLLGATE_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.TOLLGATE_TEST_WORKFLOW_BUNDLE = bundlePath;
  (globalThis as { tollgateTestServer?: { stop(): Promise<void> } }).tollgateTestServer = server;
}

const quietLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
  log: () => undefined,
};
