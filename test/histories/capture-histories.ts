// Captures the histories that `replay-histories.test.ts` replays on today's workflow code, so a change
// that would break executions already waiting in production fails CI. Run it when a new shape of
// history is worth guarding, and commit the JSON files:  npx tsx test/histories/capture-histories.ts
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, NativeConnection, type Worker } from '@temporalio/worker';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TollgateClient } from '../../src/client';
import { startDevServer } from '../../src/dev/dev-server';
import { startModelServer } from '../../src/dev/model-server';
import { tollgateSearchAttributes } from '../../src/dev/search-attributes';
import { createTollgateWorker } from '../../src/worker';
import { pendingToolApprovalsQuery } from '../../src/workflows/definitions';
import { createTestTools } from '../support/test-tools';

const taskQueue = 'capture';

async function main(): Promise<void> {
  const server = await startDevServer({ searchAttributes: tollgateSearchAttributes });
  const model = await startModelServer();
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  try {
    const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../src/workflows') });
    const worker: Worker = await createTollgateWorker({
      connection: nativeConnection,
      taskQueue,
      tools: createTestTools().tools,
      onToolApproval: ({ toolName }) => (toolName === 'deploy' ? { decision: 'deny', reason: 'policy says no' } : 'ask'),
      model: { baseURL: model.baseURL, apiKey: 'capture', model: 'tollgate-scripted' },
      workflowBundle: bundle,
    });
    const tollgate = new TollgateClient(new Client({ connection }), taskQueue);
    const save = async (name: string, workflowId: string, runId?: string) => {
      // Existing files are the point: they hold histories of older code. Only add what is missing.
      if (existsSync(path.join(__dirname, `${name}.json`))) return;
      // historyToJSON writes the form historyFromJSON (and so the replayer) reads back.
      const history = await tollgate.client.workflow.getHandle(workflowId, runId).fetchHistory();
      writeFileSync(path.join(__dirname, `${name}.json`), historyToJSON(history));
      console.log(`saved ${name}.json`);
    };
    const scenario = async (name: string, marker: string, decide: (approvalId: string) => Promise<void> | undefined, extra = {}) => {
      model.scriptFor(marker, { toolCalls: [{ id: `${name}-call`, name: 'deleteFile', arguments: { path: `${name}.txt` } }, { id: `${name}-look`, name: 'lookup', arguments: { query: name } }] }, { text: `${name} finished` });
      const handle = await tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} ${name}` }], ...extra }, { workflowId: `agent-turn-${name}` });
      let pending = await handle.query(pendingToolApprovalsQuery);
      while (pending.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        pending = await handle.query(pendingToolApprovalsQuery);
      }
      const decision = decide(pending[0]!.approvalId);
      if (decision) {
        await decision;
        await handle.result();
      } else if (name.includes('expired')) {
        await handle.result();
      }
      await save(`agent-turn-${name}`, handle.workflowId);
    };
    const policyScenario = async () => {
      model.scriptFor('[policy]', { toolCalls: [{ id: 'policy-call', name: 'deploy', arguments: { service: 'api' } }] }, { text: 'not deployed' });
      const handle = await tollgate.startTurn({ messages: [{ role: 'user', content: '[policy] deploy' }] }, { workflowId: 'agent-turn-policy' });
      await handle.result();
      await save('agent-turn-policy', handle.workflowId);
    };
    const conversationScenario = async () => {
      const conversationId = 'conversation-continued';
      model.scriptFor('[conversation]', { text: 'first answer' }, { text: 'second answer' });
      await tollgate.sendMessage(conversationId, { content: '[conversation] hello' }, { continueAsNewAfterTurns: 1 });
      const firstRunId = (await tollgate.client.workflow.getHandle(conversationId).describe()).runId;
      await tollgate.sendMessage(conversationId, { content: 'again' }).catch(() => undefined);
      let state = await tollgate.conversationState(conversationId);
      while (state.turnCount < 2 || state.currentTurnId !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = await tollgate.conversationState(conversationId);
      }
      await save(conversationId, conversationId, firstRunId);
    };
    await worker.runUntil(async () => {
      await scenario('waiting', '[waiting]', () => undefined);
      await scenario('approved', '[approved]', (id) => tollgate.decide(id, { approved: true, approver: 'ana' }).then(() => undefined));
      await scenario('denied', '[denied]', (id) => tollgate.decide(id, { approved: false, reason: 'no', approver: 'ana' }).then(() => undefined));
      await scenario('expired', '[expired]', () => undefined, { approvalTimeout: '1s' });
      await policyScenario();
      await conversationScenario();
    });
  } finally {
    await nativeConnection.close();
    await connection.close();
    await model.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
