// A Tollgate worker with MCP servers from TOLLGATE_MCP_SERVERS (and a policy from TOLLGATE_POLICY_FILE), in a process of its own, so a test can kill it with
// SIGKILL as a crash would (its stdio MCP servers lose their parent with it).
import { NativeConnection } from '@temporalio/worker';
import { operatorPolicyFromEnvironment } from '../../../src/policy';
import { mcpServersFromEnvironment } from '../../../src/tools/mcp';
import { createTollgateWorker } from '../../../src/worker';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: required('TOLLGATE_TEST_TEMPORAL_ADDRESS') });
  try {
    const worker = await createTollgateWorker({
      connection,
      taskQueue: required('TOLLGATE_TEST_TASK_QUEUE'),
      tools: [],
      mcpServers: mcpServersFromEnvironment(),
      policy: operatorPolicyFromEnvironment(),
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
