// A Tollgate worker in a process of its own, so a test can kill it with SIGKILL as a crash would. Its tools are the
// test tools and the MCP servers' of TOLLGATE_MCP_SERVERS; its policy is the environment's (TOLLGATE_POLICY_FILE).
import { NativeConnection } from '@temporalio/worker';
import { appendFileSync } from 'node:fs';
import { mcpServersFromEnvironment } from '../../src/tools/mcp';
import { createTollgateWorker, workerSettingsFromEnvironment } from '../../src/worker';
import { createTestTools } from './test-tools';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  const runLog = required('TOLLGATE_TEST_RUN_LOG');
  const { tools } = createTestTools((run) => appendFileSync(runLog, `${JSON.stringify(run)}\n`));
  const connection = await NativeConnection.connect({ address: required('TOLLGATE_TEST_TEMPORAL_ADDRESS') });
  try {
    const worker = await createTollgateWorker({
      // Decisions in these tests are unsigned unless a test's policy trusts keys: said explicitly, as an operator must.
      acceptUnsignedDecisions: true,
      connection,
      taskQueue: required('TOLLGATE_TEST_TASK_QUEUE'),
      tools,
      // The policy, store and approval secret a test gives the process in its environment.
      ...workerSettingsFromEnvironment(),
      // MCP servers a test names in TOLLGATE_MCP_SERVERS; none otherwise.
      mcpServers: mcpServersFromEnvironment(),
      model: { baseURL: required('TOLLGATE_TEST_MODEL_URL'), apiKey: 'test', model: 'tollgate-scripted' },
      workflowBundle: { codePath: required('TOLLGATE_TEST_WORKFLOW_BUNDLE') },
      // A killed worker's sticky queue is abandoned; fall back to the shared queue quickly.
      workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
    });
    await worker.runUntil(async () => {
      process.stdout.write('ready\n');
      await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
    });
  } finally {
    await connection.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
