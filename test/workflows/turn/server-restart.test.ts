import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TollgateClient } from '../../../src/client';
import { startDevServer } from '../../../src/dev/dev-server';
import { startModelServer } from '../../../src/dev/model-server';
import { findFreePort } from '../../../src/dev/ports';
import { tollgateSearchAttributes } from '../../../src/dev/search-attributes';
import { FileContentStore } from '../../../src/store';
import { defineTool } from '../../../src/tools';
import { createTollgateWorker } from '../../../src/worker';
import { z } from 'zod';
import { workflowBundlePath, waitForPending } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

describe('agentTurn across a Temporal server crash', () => {
  it('keeps a pending approval and the stored outputs when the dev server and the worker are killed and restarted', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-db-'));
    const dbFilename = path.join(folder, 'temporal.db');
    const storeFolder = path.join(folder, 'store');
    const port = await findFreePort('127.0.0.1');
    const { tools: testTools, runs } = createTestTools();
    const bigOutput = `report:${'r'.repeat(40 * 1024)}`;
    const tools = [
      ...testTools,
      defineTool({
        name: 'readReport',
        description: 'Reads a 40 KiB report.',
        inputSchema: z.object({}),
        execute: () => bigOutput,
      }),
    ];
    const model = await startModelServer();
    model.scriptFor(
      '[restart]',
      { toolCalls: [{ id: 'restart-0', name: 'readReport', arguments: {} }] },
      { toolCalls: [{ id: 'restart-1', name: 'deleteFile', arguments: { path: 'z' } }] },
      { text: 'survived' },
    );

    async function startStack() {
      const server = await startDevServer({ port, dbFilename, searchAttributes: tollgateSearchAttributes });
      const nativeConnection = await NativeConnection.connect({ address: server.address });
      const connection = await Connection.connect({ address: server.address });
      const worker: Worker = await createTollgateWorker({
        // Decisions in these tests are unsigned unless a test's policy trusts keys: said explicitly, as an operator must.
        acceptUnsignedDecisions: true,
        connection: nativeConnection,
        taskQueue: 'restart',
        tools,
        model: { baseURL: model.baseURL, apiKey: 'test', model: 'tollgate-scripted' },
        workflowBundle: { codePath: workflowBundlePath() },
        // A new store object each time: nothing survives in memory, only on disk.
        store: new FileContentStore(storeFolder),
      });
      const running = worker.run();
      const tollgate = new TollgateClient(
        new Client({ connection }),
        'restart',
        undefined,
        new FileContentStore(storeFolder),
      );
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
      // The report was stored outside history before the crash; after it, the model still read it whole,
      // and the turn's messages carry a preview with a reference that resolves to it.
      const lastRequest = model.requestsFor('[restart]').at(-1);
      expect(JSON.stringify(lastRequest?.messages)).toContain(bigOutput);
      const stub = result.messages
        .flatMap((message) => (message.role === 'tool' ? message.content : []))
        .find((part) => part.type === 'tool-result' && part.toolCallId === 'restart-0');
      const ref = stub?.providerOptions?.tollgate?.contentRef as string;
      expect(JSON.stringify(stub).length).toBeLessThan(2_000);
      expect(await stack.tollgate.readContent(ref)).toEqual({ type: 'text', value: bigOutput });
    } finally {
      await stack.stop(false);
      await model.close();
    }
  }, 90_000);
});
