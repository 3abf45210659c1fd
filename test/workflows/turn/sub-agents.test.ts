import { WorkflowNotFoundError } from '@temporalio/client';
import { defineAgentTool } from '../../../src';
import { modelMessageSchema } from '../../../src/protocol';
import { toolApprovalResponseSignal } from '../../../src/workflows/definitions';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const { tools, runs } = createTestTools();
const lookup = tools.find((tool) => tool.name === 'lookup')!;
const deleteFile = tools.find((tool) => tool.name === 'deleteFile')!;
const reader = defineAgentTool({
  name: 'reader',
  description: 'Looks things up and reports what it found.',
  instructions: 'You look words up and say what they mean.',
  tools: [lookup, deleteFile],
  maxSteps: 3,
});
const editor = defineAgentTool({
  name: 'editor',
  description: 'Edits by handing reading to the reader.',
  instructions: 'You edit; the reader reads for you.',
  tools: [reader],
});
let environment: TestEnvironment;

beforeAll(async () => {
  // The worker gets the agent tools only: their own tools come with them.
  environment = await createTestEnvironment({ tools: [editor] });
});
afterAll(async () => {
  await environment?.close();
});

/** The tool message the calling model read on its second request. */
function toolMessageRead(marker: string) {
  return environment.model.requestsFor(marker)[1]?.messages.at(-1);
}

describe('agent tools', () => {
  it('runs a call as a child turn whose final answer the calling model reads', async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} define tollgate` } }] },
      { text: 'The reader says: a barrier.' },
    );
    environment.model.scriptFor(
      child,
      { toolCalls: [{ id: `${child}-1`, name: 'lookup', arguments: { query: 'tollgate' } }] },
      { text: 'A tollgate is a barrier.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} what is a tollgate?` }],
      tools: ['reader'],
      requester: 'ana',
    });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(result.text).toBe('The reader says: a barrier.');
    expect(result.treeSteps).toBe(4);
    expect(toolMessageRead(parent)).toMatchObject({
      role: 'tool',
      tool_call_id: `${parent}-1`,
      content: 'A tollgate is a barrier.',
    });
    expect(runs.filter((run) => run.toolCallId === `${child}-1`)).toHaveLength(1);
    // The child reads as a path under its parent, with its instructions as the system message.
    const childHandle = environment.client.workflow.getHandle(`${handle.workflowId}/reader-1`);
    const description = await childHandle.describe();
    expect(description.parentExecution?.workflowId).toBe(handle.workflowId);
    const childRequest = environment.model.requestsFor(child)[0];
    expect(childRequest?.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('look words up'),
    });
    const childResult = await childHandle.result();
    for (const message of [...result.messages, ...childResult.messages]) {
      expect(modelMessageSchema.safeParse(message).success).toBe(true);
    }
  });

  it('gives the calling model an error it reads when the sub-agent runs out of steps', async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} keep looking` } }] },
      { text: 'The reader gave up.' },
    );
    const loop = (n: number) => ({
      toolCalls: [{ id: `${child}-${n}`, name: 'lookup', arguments: { query: `w${n}` } }],
    });
    environment.model.scriptFor(child, loop(1), loop(2), loop(3));
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} research` }],
      tools: ['reader'],
    });
    const result = await handle.result();

    expect(result.text).toBe('The reader gave up.');
    const read = toolMessageRead(parent);
    expect(read).toMatchObject({ role: 'tool', tool_call_id: `${parent}-1` });
    expect(String(read?.content)).toContain('Sub-agent "reader" ran out of steps (3)');
  });

  it('refuses a sub-agent past the depth limit with an error the model reads, starting no child', async () => {
    const parent = uniqueMarker();
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'editor', arguments: { task: 'edit' } }] },
      { text: 'No editor.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} edit` }],
      tools: ['editor'],
      subAgentLimits: { maxDepth: 0 },
    });
    await handle.result();

    expect(String(toolMessageRead(parent)?.content)).toContain('agents may call agents only 0 deep (editor)');
    await expect(environment.client.workflow.getHandle(`${handle.workflowId}/editor-1`).describe()).rejects.toThrow(
      WorkflowNotFoundError,
    );
  });

  it('runs an agent that calls an agent, the grandchild under its own path, within the tree step limit', async () => {
    const top = uniqueMarker();
    const middle = uniqueMarker();
    const bottom = uniqueMarker();
    environment.model.scriptFor(
      top,
      { toolCalls: [{ id: `${top}-1`, name: 'editor', arguments: { task: `${middle} edit` } }] },
      { text: 'Edited.' },
    );
    environment.model.scriptFor(
      middle,
      { toolCalls: [{ id: `${middle}-1`, name: 'reader', arguments: { task: `${bottom} read` } }] },
      { text: 'Read and edited.' },
    );
    environment.model.scriptFor(bottom, { text: 'Nothing to read.' });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${top} edit it` }],
      tools: ['editor'],
    });
    const result = await handle.result();

    expect(result.text).toBe('Edited.');
    expect(result.treeSteps).toBe(5);
    const grandchild = await environment.client.workflow.getHandle(`${handle.workflowId}/editor-1/reader-1`).result();
    expect(grandchild.text).toBe('Nothing to read.');
  });

  it('stops a tree that reached its total step limit with an error the model reads', async () => {
    const parent = uniqueMarker();
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: 'read' } }] },
      { text: 'Out of budget.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} read` }],
      tools: ['reader'],
      subAgentLimits: { maxTotalSteps: 1 },
    });
    await handle.result();

    expect(String(toolMessageRead(parent)?.content)).toContain('used every model call they may make');
  });

  it('carries the requester down and ends a waiting child when its parent is cancelled', async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(parent, {
      toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} clean up` } }],
    });
    environment.model.scriptFor(child, {
      toolCalls: [{ id: `${child}-1`, name: 'deleteFile', arguments: { path: 'old.log' } }],
    });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} clean up` }],
      tools: ['reader'],
      requester: 'ana',
      approvalRules: { allowSelfApproval: false },
    });
    const childHandle = environment.client.workflow.getHandle(`${handle.workflowId}/reader-1`);
    const pending = await waitFor(
      () => waitForPending(childHandle as never, 1).catch(() => []),
      (list) => list.length === 1,
    );
    expect(pending[0]).toMatchObject({ toolName: 'deleteFile', input: { path: 'old.log' } });
    // The requester and the caller's rules carried down: deciding their own call is refused as a self-approval.
    await childHandle.signal(toolApprovalResponseSignal, {
      approvalId: pending[0]!.approvalId,
      approved: true,
      approver: 'ana',
    });
    const ignored = await waitFor(
      () => environment.tollgate.state(childHandle.workflowId),
      (state) => state.ignoredDecisions.length === 1,
    );
    expect(ignored.ignoredDecisions[0]).toMatchObject({ cause: 'forbidden' });
    await handle.cancel();
    await waitFor(
      () => childHandle.describe(),
      (description) => description.status.name !== 'RUNNING',
    );
    expect(runs.filter((run) => run.toolCallId === `${child}-1`)).toHaveLength(0);
  });
});
