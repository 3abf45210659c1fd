// Captures the example's histories: an expense approved after it waited, on the code before the change
// (`before`) and on today's (`after`). Existing files are never overwritten: they hold the old code's histories.
//
//   npx tsx docs/examples/changing-workflow-code/capture.ts before after
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection, Worker } from '@temporalio/worker';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer } from '../../../src/dev/dev-server';
import { expenseActivities } from './activities';
import { decideSignal } from './definitions';

const codeOf = { before: './workflow-before', after: './workflow' } as const;

async function capture(client: Client, connection: NativeConnection, which: keyof typeof codeOf): Promise<void> {
  const file = path.join(__dirname, 'histories', `expense-${which}.json`);
  if (existsSync(file)) return console.log(`${path.basename(file)} exists, skipped (delete it to capture it again)`);
  const taskQueue = `expense-${which}`;
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve(codeOf[which]),
    activities: expenseActivities,
  });
  await worker.runUntil(async () => {
    const handle = await client.workflow.start('expenseApproval', {
      taskQueue,
      workflowId: `expense-${which}`,
      args: [{ expenseId: `expense-${which}`, amount: 120 }],
    });
    // Decide once the execution waits, as an approver would, days later.
    for (;;) {
      const { events } = await handle.fetchHistory();
      const tasks = events?.filter((event) => event.workflowTaskCompletedEventAttributes).length ?? 0;
      if (tasks >= (which === 'before' ? 1 : 2)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await handle.signal(decideSignal, { approved: true });
    await handle.result();
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`saved ${path.basename(file)}`);
  });
}

async function main(): Promise<void> {
  const chosen = process.argv.slice(2).filter((name): name is keyof typeof codeOf => name in codeOf);
  const server = await startDevServer();
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  try {
    const client = new Client({ connection });
    for (const which of chosen) await capture(client, nativeConnection, which);
  } finally {
    await nativeConnection.close();
    await connection.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
