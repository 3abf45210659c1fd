import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import path from 'node:path';
import { TollgateClient } from '../../../src/client';
import { startDevServer } from '../../../src/dev/dev-server';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';
import { tollgateSearchAttributes } from '../../../src/dev/search-attributes';
import { FileContentStore } from '../../../src/store';
import { defineTool, type Tool } from '../../../src/tools';
import { createTollgateWorker } from '../../../src/worker';
import { z } from 'zod';
import { workflowBundlePath, waitForPending } from '../../support/test-environment';
import { freeStablePort } from '../../support/stable-ports';
import { createTestTools } from '../../support/test-tools';
import { files, writer } from '../../../docs/examples/sub-agents/writer-and-reader';
import { temporaryFolder } from '../../support/temporary-folder';

describe('agentTurn across a Temporal server crash', () => {
  it('keeps a pending approval and the stored outputs when the dev server and the worker are killed and restarted', async () => {
    const folder = temporaryFolder('tollgate-db-');
    const dbFilename = path.join(folder, 'temporal.db');
    const storeFolder = path.join(folder, 'store');
    const port = await freeStablePort(); // the server restarts on it
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

    const startStack = () => startRestartableStack({ port, dbFilename, storeFolder, tools, model });

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

  it("keeps a grandchild's approval waiting at the top turn through a server crash, and the tree finishes once decided", async () => {
    const folder = temporaryFolder('tollgate-db-');
    const dbFilename = path.join(folder, 'temporal.db');
    const storeFolder = path.join(folder, 'store');
    const port = await freeStablePort(); // the server restarts on it
    const model = await startModelServer();
    // The sub-agents page's worked example: a writer hands reading to a reader, whose writeFile waits.
    model.scriptFor(
      '[crash-report]',
      { toolCalls: [{ id: 'w-1', name: 'writer', arguments: { task: '[crash-write] a report on draft.md' } }] },
      { text: 'The report survived the crash.' },
    );
    model.scriptFor(
      '[crash-write]',
      { toolCalls: [{ id: 'r-1', name: 'reader', arguments: { task: '[crash-read] read draft.md' } }] },
      { text: 'Report written.' },
    );
    model.scriptFor(
      '[crash-read]',
      { toolCalls: [{ id: 'f-1', name: 'writeFile', arguments: { path: 'crash.md', content: 'still here' } }] },
      { text: 'Noted.' },
    );
    const startStack = () => startRestartableStack({ port, dbFilename, storeFolder, tools: [writer], model });

    let stack = await startStack();
    try {
      const handle = await stack.tollgate.startTurn({
        messages: [{ role: 'user', content: '[crash-report] write it' }],
        tools: ['writer'],
        requester: 'ana',
      });
      const [approval] = await waitForPending(handle, 1);
      expect(approval).toMatchObject({ toolName: 'writeFile', path: ['writer', 'reader'] });
      await stack.stop(true);

      stack = await startStack();
      // The server came back from its database: the whole tree is there, and the top turn still shows the call.
      expect(await stack.tollgate.pending({ workflowId: handle.workflowId })).toEqual([
        expect.objectContaining({ ...approval, workflowId: handle.workflowId }),
      ]);
      await stack.tollgate.decide(approval!.approvalId, { approved: true, approver: 'bo' });
      const result = await stack.tollgate.turn(handle.workflowId).result();
      expect(result.text).toBe('The report survived the crash.');
      expect(result.treeSteps).toBe(6);
      expect(files.get('crash.md')).toBe('still here');
      const reader = await stack.tollgate.state(`${handle.workflowId}/writer-1/reader-1`);
      expect(reader.audit).toEqual([expect.objectContaining({ decision: 'approved', approver: 'bo' })]);
    } finally {
      await stack.stop(false);
      await model.close();
    }
  }, 90_000);
});

/**
 * A dev server persisting to `dbFilename`, a worker and a client on it. `stop(true)` kills the server as a crash
 * would; starting again on the same file finds every workflow as it was.
 */
async function startRestartableStack(options: {
  port: number;
  dbFilename: string;
  storeFolder: string;
  tools: Tool[];
  model: ModelServer;
}) {
  const { port, dbFilename, storeFolder, tools, model } = options;
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
