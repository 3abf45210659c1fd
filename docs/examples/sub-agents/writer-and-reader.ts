// docs/sub-agents.md's worked example, type-checked here (test/docs/code-samples.test.ts): a writer hands reading to
// a reader agent, whose writeFile waits for a person; the writer's turn shows the reader's call and a decision by its
// approvalId reaches the reader. The scripted model plays all the models. Run it against a Temporal dev server:
//   TEMPORAL_ADDRESS=localhost:7233 npx tsx docs/examples/sub-agents/writer-and-reader.ts
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import {
  createTollgateWorker,
  defineAgentTool,
  defineTool,
  temporalSettingsFromEnvironment,
  TollgateClient,
  type PendingToolApproval,
} from 'tollgate';
import { scriptedModelSettings, startModelServer } from 'tollgate/testing';

/** The files the example's tools read and write. */
export const files = new Map([['draft.md', 'Tollgate makes agents ask before they act.']]);

export const readFile = defineTool({
  name: 'readFile',
  description: 'Reads a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => files.get(path) ?? `no file ${path}`,
});
export const writeFile = defineTool({
  name: 'writeFile',
  description: 'Writes a file',
  inputSchema: z.object({ path: z.string(), content: z.string() }),
  needsApproval: true,
  execute: async ({ path, content }) => {
    files.set(path, content);
    return `wrote ${path}`;
  },
});

export const reader = defineAgentTool({
  name: 'reader',
  description: 'Reads files and keeps notes on them',
  instructions: 'You read the files you are given and save your notes in notes.md.',
  tools: [readFile, writeFile],
  maxSteps: 5,
});
export const writer = defineAgentTool({
  name: 'writer',
  description: 'Writes reports; hands reading to the reader',
  instructions: 'You write reports. Ask the reader to read files for you.',
  tools: [reader],
});

export async function writerAndReader(): Promise<void> {
  // The scripted model: each conversation is found by a marker in its user message.
  const model = await startModelServer();
  model.scriptFor(
    '[report]',
    { toolCalls: [{ id: 'w-1', name: 'writer', arguments: { task: '[write] A report on draft.md' } }] },
    { text: 'The writer wrote the report.' },
  );
  model.scriptFor(
    '[write]',
    { toolCalls: [{ id: 'r-1', name: 'reader', arguments: { task: '[read] Read draft.md, note its point' } }] },
    { text: 'Report: agents ask before they act.' },
  );
  model.scriptFor(
    '[read]',
    { toolCalls: [{ id: 'f-1', name: 'readFile', arguments: { path: 'draft.md' } }] },
    { toolCalls: [{ id: 'f-2', name: 'writeFile', arguments: { path: 'notes.md', content: 'Ask first.' } }] },
    { text: 'Noted in notes.md: ask first.' },
  );

  const settings = temporalSettingsFromEnvironment();
  const connection = await NativeConnection.connect(settings.connectionOptions);
  const tollgate = await TollgateClient.connect(settings);
  // The worker needs only the agent tools: each one's tools are registered with it, all the way down.
  const worker = await createTollgateWorker({
    connection,
    taskQueue: tollgate.taskQueue,
    tools: [writer],
    model: scriptedModelSettings(model),
    acceptUnsignedDecisions: true,
  });
  await worker.runUntil(async () => {
    const handle = await tollgate.startTurn({
      messages: [{ role: 'user', content: '[report] Write me a report on draft.md' }],
      tools: ['writer'],
      requester: 'ana',
    });
    // The top turn lists the call its grandchild waits for, with the path that led to it.
    let waiting: PendingToolApproval[] = [];
    while (waiting.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      waiting = await tollgate.pending({ workflowId: handle.workflowId });
    }
    const [approval] = waiting as [PendingToolApproval];
    console.log(`${approval.path?.join(' → ')} → ${approval.toolName}`, approval.input);
    // writer → reader → writeFile { path: 'notes.md', content: 'Ask first.' }

    // Decided by its approvalId, as every channel does: it reaches the reader (`<turn id>/writer-1/reader-1`).
    await tollgate.decide(approval.approvalId, { approved: true, approver: 'bo' });
    const result = await handle.result();
    console.log(result.text, result.treeSteps, files.get('notes.md'));
    // The writer wrote the report. 7 Ask first.
  });
  await tollgate.close();
  await connection.close();
  await model.close();
}

if (require.main === module) {
  writerAndReader().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
