import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TollgateClient } from '../../src/client';
import { startDevServer } from '../../src/dev/dev-server';
import { startModelServer } from '../../src/dev/model-server';
import { findFreePort } from '../../src/dev/ports';
import { tollgateSearchAttributes } from '../../src/dev/search-attributes';
import { createTollgateWorker } from '../../src/worker';
import { workflowBundlePath, waitForPending } from '../support/test-environment';
import { createTestTools } from '../support/test-tools';

describe('agentTurn across a Temporal server crash', () => {
  it('keeps a pending approval when the dev server is killed and restarted on its SQLite file', async () => {
    const dbFilename = path.join(mkdtempSync(path.join(os.tmpdir(), 'tollgate-db-')), 'temporal.db');
    const port = await findFreePort('127.0.0.1');
    const { tools, runs } = createTestTools();
    const model = await startModelServer();
    model.scriptFor(
      '[restart]',
      { toolCalls: [{ id: 'restart-1', name: 'deleteFile', arguments: { path: 'z' } }] },
      { text: 'survived' },
    );

    async function startStack() {
      const server = await startDevServer({ port, dbFilename, searchAttributes: tollgateSearchAttributes });
      const nativeConnection = await NativeConnection.connect({ address: server.address });
      const connection = await Connection.connect({ address: server.address });
      const worker: Worker = await createTollgateWorker({
        connection: nativeConnection,
        taskQueue: 'restart',
        tools,
        model: { baseURL: model.baseURL, apiKey: 'test', model: 'tollgate-scripted' },
        workflowBundle: { codePath: workflowBundlePath() },
      });
      const running = worker.run();
      const tollgate = new TollgateClient(new Client({ connection }), 'restart');
      return {
        tollgate,
        async stop(crash: boolean) {
          worker.shutdown();
          await running;
          await nativeConnection.close();
          await connection.close();
          await (crash ? server.kill() : server.stop());
        },
      };
    }

    let stack = await startStack();
    try {
      const handle = await stack.tollgate.startTurn({ messages: [{ role: 'user', content: '[restart] delete z' }] });
      const [approval] = await waitForPending(handle, 1);
      await stack.stop(true);

      stack = await startStack();
      const pending = await stack.tollgate.pending({ workflowId: handle.workflowId });
      expect(pending.map((entry) => entry.approvalId)).toEqual([approval!.approvalId]);
      await stack.tollgate.decide(approval!.approvalId, { approved: true });
      const result = await stack.tollgate.turn(handle.workflowId).result();
      expect(result.text).toBe('survived');
      expect(runs.filter((run) => run.toolCallId === 'restart-1')).toHaveLength(1);
    } finally {
      await stack.stop(false);
      await model.close();
    }
  }, 90_000);
});
