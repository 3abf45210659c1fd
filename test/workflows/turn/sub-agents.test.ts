import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { defineTool } from '../../../src';
import { GrantLedgerClient } from '../../../src/client';
import { listPendingApprovals } from '../../../src/gateway/turns/list-pending-approvals';
import { expectProblem, startGateway } from '../../gateway/gateway-fixture';
import { modelMessageSchema, type AgentTurnResult } from '../../../src/protocol';
import {
  approversSearchAttribute,
  pendingApprovalsSearchAttribute,
  supersedeTurnSignal,
  toolApprovalResponseSignal,
  waitingToolsSearchAttribute,
} from '../../../src/workflows/definitions';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
// The agents of docs/sub-agents.md, from its type-checked example: a writer that hands reading to a reader, whose
// writeFile waits for a person.
import { files, writer } from '../../../docs/examples/sub-agents/writer-and-reader';

// A tool of the top turn whose approval fails the turn when nobody decides within a second.
const urgentFix = defineTool({
  name: 'urgentFix',
  description: 'Applies a fix that cannot wait',
  inputSchema: z.object({ what: z.string() }),
  needsApproval: true,
  approvalTimeout: '1s',
  onExpire: 'fail',
  execute: async () => 'fixed',
});
let environment: TestEnvironment;

beforeAll(async () => {
  // The worker gets the agent tools only: their own tools come with them.
  environment = await createTestEnvironment({ tools: [writer, urgentFix] });
});
afterAll(async () => {
  await environment?.close();
});

/** Every message of these turns is one the AI SDK reads. */
function expectValidTranscripts(...results: AgentTurnResult[]): void {
  for (const message of results.flatMap((result) => result.messages)) {
    expect(modelMessageSchema.safeParse(message).success).toBe(true);
  }
}

/** Whether the docs' writeFile ran for the call `toolCallId` (each test's calls write their own id). */
function written(toolCallId: string): boolean {
  return [...files.values()].includes(toolCallId);
}

/**
 * Starts a turn whose model calls the reader twice in one step, each reader asking to write one of `files` (its call's
 * id as the content) and answering "Deleted <file>."; returns the markers and the two calls once both wait.
 */
async function startTwoReaders(files: [string, string], answer: string) {
  const parent = uniqueMarker();
  const first = uniqueMarker();
  const second = uniqueMarker();
  environment.model.scriptFor(
    parent,
    {
      toolCalls: [
        { id: `${parent}-1`, name: 'reader', arguments: { task: `${first} one` } },
        { id: `${parent}-2`, name: 'reader', arguments: { task: `${second} two` } },
      ],
    },
    { text: answer },
  );
  for (const [marker, file] of [
    [first, files[0]],
    [second, files[1]],
  ] as const) {
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'writeFile', arguments: { path: file, content: `${marker}-1` } }] },
      { text: `Deleted ${file}.` },
    );
  }
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${parent} clean both` }],
    tools: ['reader'],
  });
  return { parent, first, second, handle, pending: await waitForPending(handle, 2) };
}

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
      { toolCalls: [{ id: `${child}-1`, name: 'readFile', arguments: { path: 'draft.md' } }] },
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
    // The sub-agent's own tool ran: its model read the file.
    expect(environment.model.requestsFor(child)[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: `${child}-1`,
      content: expect.stringContaining('Tollgate makes agents ask before they act.'),
    });
    // The child reads as a path under its parent, with its instructions as the system message.
    const childHandle = environment.client.workflow.getHandle(`${handle.workflowId}/reader-1`);
    const description = await childHandle.describe();
    expect(description.parentExecution?.workflowId).toBe(handle.workflowId);
    const childRequest = environment.model.requestsFor(child)[0];
    expect(childRequest?.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('You read the files you are given'),
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
      toolCalls: [{ id: `${child}-${n}`, name: 'readFile', arguments: { path: `w${n}.md` } }],
    });
    environment.model.scriptFor(child, loop(1), loop(2), loop(3), loop(4), loop(5));
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} research` }],
      tools: ['reader'],
    });
    const result = await handle.result();

    expect(result.text).toBe('The reader gave up.');
    const read = toolMessageRead(parent);
    expect(read).toMatchObject({ role: 'tool', tool_call_id: `${parent}-1` });
    expect(String(read?.content)).toContain('Sub-agent "reader" ran out of steps (5)');
  });

  it('refuses a sub-agent past the depth limit with an error the model reads, starting no child', async () => {
    const parent = uniqueMarker();
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'writer', arguments: { task: 'edit' } }] },
      { text: 'No editor.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} edit` }],
      tools: ['writer'],
      subAgentLimits: { maxDepth: 0 },
    });
    await handle.result();

    expect(String(toolMessageRead(parent)?.content)).toContain('agents may call agents only 0 deep (writer)');
    await expect(environment.client.workflow.getHandle(`${handle.workflowId}/writer-1`).describe()).rejects.toThrow(
      WorkflowNotFoundError,
    );
  });

  it('runs an agent that calls an agent, the grandchild under its own path, within the tree step limit', async () => {
    const top = uniqueMarker();
    const middle = uniqueMarker();
    const bottom = uniqueMarker();
    environment.model.scriptFor(
      top,
      { toolCalls: [{ id: `${top}-1`, name: 'writer', arguments: { task: `${middle} edit` } }] },
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
      tools: ['writer'],
    });
    const result = await handle.result();

    expect(result.text).toBe('Edited.');
    expect(result.treeSteps).toBe(5);
    const grandchild = await environment.client.workflow.getHandle(`${handle.workflowId}/writer-1/reader-1`).result();
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
      toolCalls: [{ id: `${child}-1`, name: 'writeFile', arguments: { path: 'old.log', content: `${child}-1` } }],
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
    expect(pending[0]).toMatchObject({ toolName: 'writeFile', input: { path: 'old.log' } });
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
    expect(written(`${child}-1`)).toBe(false);
  });
});

describe("a sub-agent's approvals", () => {
  it('show in every turn above the one that waits, with the path, and a decision sent to the top turn reaches it', async () => {
    const top = uniqueMarker();
    const middle = uniqueMarker();
    const bottom = uniqueMarker();
    environment.model.scriptFor(
      top,
      { toolCalls: [{ id: `${top}-1`, name: 'writer', arguments: { task: `${middle} tidy` } }] },
      { text: 'Tidied.' },
    );
    environment.model.scriptFor(
      middle,
      { toolCalls: [{ id: `${middle}-1`, name: 'reader', arguments: { task: `${bottom} tidy` } }] },
      { text: 'The reader tidied.' },
    );
    environment.model.scriptFor(
      bottom,
      {
        toolCalls: [{ id: `${bottom}-1`, name: 'writeFile', arguments: { path: 'notes.md', content: `${bottom}-1` } }],
      },
      { text: 'Deleted notes.md.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${top} tidy up` }],
      tools: ['writer'],
      requester: 'ana',
    });
    const grandchildId = `${handle.workflowId}/writer-1/reader-1`;
    const [shown] = await waitForPending(handle, 1);
    expect(shown).toMatchObject({ toolName: 'writeFile', input: { path: 'notes.md' }, path: ['writer', 'reader'] });
    // The approval is the grandchild's: its id names the turn that waits.
    const [own] = await waitForPending(environment.client.workflow.getHandle(grandchildId), 1);
    // The top turn's entry names its own call that led to it, for a page to draw it inside that call.
    expect(shown).toEqual({ ...own, agentToolCallId: `${top}-1` });
    const state = await environment.tollgate.state(handle.workflowId);
    expect(state).toMatchObject({ status: 'awaiting-approval', pending: [shown] });
    // Inboxes find the top turn by what waits under it, and the gateway's listing shows the call once.
    const attributes = await waitFor(
      async () => (await handle.describe()).typedSearchAttributes,
      (found) => (found.get(waitingToolsSearchAttribute) ?? []).includes('writeFile'),
    );
    expect(attributes.get(pendingApprovalsSearchAttribute)).toEqual([shown!.approvalId]);
    const listing = await listPendingApprovals(environment.tollgate, { workflowId: handle.workflowId }, () => true);
    expect(listing.approvals.map(({ approvalId, path }) => ({ approvalId, path }))).toEqual([
      { approvalId: shown!.approvalId, path: ['writer', 'reader'] },
    ]);

    // Signalled to the top turn, the decision is passed down to the grandchild, which judges it.
    await handle.signal(toolApprovalResponseSignal, { approvalId: shown!.approvalId, approved: true, approver: 'bo' });
    const result = await handle.result();

    expect(result.text).toBe('Tidied.');
    expect(written(`${bottom}-1`)).toBe(true);
    const grandchild = await environment.client.workflow.getHandle(grandchildId).result();
    expect(grandchild.audit).toEqual([expect.objectContaining({ decision: 'approved', approver: 'bo' })]);
    expect(result.pending).toEqual([]);
    expectValidTranscripts(result, grandchild);
  });

  it("are decided by an update sent to the top turn, which answers with the grandchild's verdict", async () => {
    const top = uniqueMarker();
    const middle = uniqueMarker();
    const bottom = uniqueMarker();
    environment.model.scriptFor(
      top,
      { toolCalls: [{ id: `${top}-1`, name: 'writer', arguments: { task: `${middle} tidy` } }] },
      { text: 'Tidied by update.' },
    );
    environment.model.scriptFor(
      middle,
      { toolCalls: [{ id: `${middle}-1`, name: 'reader', arguments: { task: `${bottom} tidy` } }] },
      { text: 'The reader tidied.' },
    );
    environment.model.scriptFor(
      bottom,
      {
        toolCalls: [{ id: `${bottom}-1`, name: 'writeFile', arguments: { path: 'update.md', content: `${bottom}-1` } }],
      },
      { text: 'Deleted update.md.' },
    );
    // Ana asked; she and Bo may decide, but not her own call, down the tree too.
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${top} tidy up` }],
      tools: ['writer'],
      requester: 'ana',
      approvalRules: { approvers: ['ana', 'bo'], allowSelfApproval: false },
    });
    const grandchildId = `${handle.workflowId}/writer-1/reader-1`;
    const [shown] = await waitForPending(handle, 1);
    const decide = (approver: string) =>
      environment.tollgate.decideMany(handle.workflowId, [{ approvalId: shown!.approvalId, approved: true, approver }]);

    // Refused by the grandchild, by the approval's own rules, and the refusal comes back through the top turn.
    await expect(decide('ana')).rejects.toMatchObject({
      name: 'ApprovalDecisionError',
      code: 'forbidden',
      workflowId: handle.workflowId,
    });
    await expect(decide('zed')).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('zed'),
    });
    // Nothing changed: the call still waits, in the grandchild and at the top, and nothing was recorded.
    expect(await waitForPending(handle, 1)).toEqual([shown]);
    const waiting = await environment.tollgate.state(grandchildId);
    expect(waiting).toMatchObject({ status: 'awaiting-approval', audit: [] });

    // Taken by the grandchild: the top turn's update returns what the grandchild recorded, and a repeat says so.
    const [recorded] = await decide('bo');
    expect(recorded).toMatchObject({
      approvalId: shown!.approvalId,
      decision: 'approved',
      approver: 'bo',
      via: 'update',
      outcome: 'recorded',
    });
    const result = await handle.result();

    expect(result.text).toBe('Tidied by update.');
    expect(written(`${bottom}-1`)).toBe(true);
    const grandchild = await environment.client.workflow.getHandle(grandchildId).result();
    expect(grandchild.audit).toEqual([
      expect.objectContaining({ decision: 'approved', approver: 'bo', via: 'update' }),
    ]);
    expectValidTranscripts(result, grandchild);
  });

  it("are decided through the gateway's decisions route of the top turn, with the sub-agent's verdict", async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} note` } }] },
      { text: 'Noted through the gateway.' },
    );
    environment.model.scriptFor(
      child,
      {
        toolCalls: [{ id: `${child}-1`, name: 'writeFile', arguments: { path: 'gateway.md', content: `${child}-1` } }],
      },
      { text: 'Wrote gateway.md.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} take notes` }],
      tools: ['reader'],
      requester: 'ana',
      approvalRules: { approvers: ['ana', 'bob'], allowSelfApproval: false },
    });
    const [shown] = await waitForPending(handle, 1);
    const gateway = await startGateway(environment.tollgate);
    try {
      const route = `/v1/turns/${encodeURIComponent(handle.workflowId)}/decisions`;
      const body = { responses: [{ approvalId: shown!.approvalId, approved: true }] };
      // The requester and someone who is no approver: the sub-agent refuses both, and nothing changes.
      expectProblem(await gateway.call('POST', route, { as: 'ana', body }), 403, 'forbidden');
      expectProblem(await gateway.call('POST', route, { as: 'eve', body }), 403, 'forbidden');
      expect(await waitForPending(handle, 1)).toEqual([shown]);
      expect(written(`${child}-1`)).toBe(false);

      const decided = await gateway.call('POST', route, { as: 'bob', body });
      expect(decided.status).toBe(200);
      expect(decided.body.decisions).toEqual([
        expect.objectContaining({ approvalId: shown!.approvalId, decision: 'approved', approver: 'bob' }),
      ]);
    } finally {
      await gateway.close();
    }
    expect((await handle.result()).text).toBe('Noted through the gateway.');
    expect(written(`${child}-1`)).toBe(true);
  });

  it("refuse an update that mixes a sub-agent's approval with another workflow's, changing nothing", async () => {
    const { handle, pending } = await startTwoReaders(['mixed-one.log', 'mixed-two.log'], 'Both asked.');
    const responses = pending.map(({ approvalId }) => ({ approvalId, approved: false, approver: 'bo' }));

    await expect(environment.tollgate.decideMany(handle.workflowId, responses)).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringContaining('send one update for each'),
    });
    expect(await waitForPending(handle, 2)).toEqual(pending);
    for (const { approvalId } of pending) {
      await environment.tollgate.decideMany(handle.workflowId, [{ approvalId, approved: false, approver: 'bo' }]);
    }
    expect((await handle.result()).text).toBe('Both asked.');
  });

  it('wait side by side in two sub-agents, decided in the other order, each through its own id', async () => {
    const { parent, first, second, handle, pending } = await startTwoReaders(['one.log', 'two.log'], 'Both done.');
    const byFile = (file: string) => pending.find((approval) => (approval.input as { path: string }).path === file)!;
    expect(byFile('one.log').path).toEqual(['reader']);
    expect(byFile('two.log').path).toEqual(['reader']);
    // Two calls of the same agent tool: each sub-agent's call names the one it waits under.
    expect(byFile('one.log').agentToolCallId).toBe(`${parent}-1`);
    expect(byFile('two.log').agentToolCallId).toBe(`${parent}-2`);

    // The second first: the client finds the sub-agent from the approval id, as every channel does.
    await environment.tollgate.decide(byFile('two.log').approvalId, { approved: false, approver: 'bo', reason: 'no' });
    const left = await waitForPending(handle, 1);
    expect(left[0]?.approvalId).toBe(byFile('one.log').approvalId);
    await environment.tollgate.decide(byFile('one.log').approvalId, { approved: true, approver: 'bo' });
    const result = await handle.result();

    expect(result.text).toBe('Both done.');
    expect(written(`${first}-1`)).toBe(true);
    expect(written(`${second}-1`)).toBe(false);
    const read = environment.model.requestsFor(parent)[1]?.messages.filter((message) => message.role === 'tool');
    expect(read?.map((message) => String(message.content))).toEqual([
      'Deleted one.log.',
      expect.stringContaining('Sub-agent "reader" was denied every call it asked for'),
    ]);
    expectValidTranscripts(result);
  });

  it('are denied, and the sub-agents end, when the parent is superseded; a later decision changes nothing', async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(parent, {
      toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} clean` } }],
    });
    environment.model.scriptFor(child, {
      toolCalls: [{ id: `${child}-1`, name: 'writeFile', arguments: { path: 'old.log', content: `${child}-1` } }],
    });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} clean` }],
      tools: ['reader'],
    });
    const [approval] = await waitForPending(handle, 1);
    await handle.signal(supersedeTurnSignal, { reason: 'a newer message' });
    const result = await handle.result();

    expect(result.status).toBe('superseded');
    const childResult = await environment.client.workflow.getHandle(`${handle.workflowId}/reader-1`).result();
    expect(childResult.status).toBe('superseded');
    expect(childResult.audit).toEqual([
      expect.objectContaining({ approvalId: approval!.approvalId, decision: 'denied', reason: 'a newer message' }),
    ]);
    await expect(environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'bo' })).rejects.toThrow(
      /denied|decided|closed/i,
    );
    expect(written(`${child}-1`)).toBe(false);
    expectValidTranscripts(result, childResult);
  });

  it('keep waiting in a grandchild through a worker restart, and the tree finishes once decided', async () => {
    const top = uniqueMarker();
    const middle = uniqueMarker();
    const bottom = uniqueMarker();
    environment.model.scriptFor(
      top,
      { toolCalls: [{ id: `${top}-1`, name: 'writer', arguments: { task: `${middle} go` } }] },
      { text: 'Done after the restart.' },
    );
    environment.model.scriptFor(
      middle,
      { toolCalls: [{ id: `${middle}-1`, name: 'reader', arguments: { task: `${bottom} go` } }] },
      { text: 'Read.' },
    );
    environment.model.scriptFor(
      bottom,
      {
        toolCalls: [{ id: `${bottom}-1`, name: 'writeFile', arguments: { path: 'draft.md', content: `${bottom}-1` } }],
      },
      { text: 'Deleted.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${top} go` }],
      tools: ['writer'],
    });
    const [approval] = await waitForPending(handle, 1);
    await environment.stopWorker();
    await environment.startWorker();
    // The new worker replays all three turns from their histories and still shows the call at the top.
    expect(await waitForPending(handle, 1)).toEqual([approval]);
    await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'bo' });
    const result = await handle.result();

    expect(result.text).toBe('Done after the restart.');
    expect(result.treeSteps).toBe(6);
    expect(written(`${bottom}-1`)).toBe(true);
  });

  it("expire with the parent's approvalTimeout: denied in the sub-agent, which ends, and nothing waits in the tree", async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} clean` } }] },
      { text: 'Nobody answered in time.' },
    );
    environment.model.scriptFor(
      child,
      { toolCalls: [{ id: `${child}-1`, name: 'writeFile', arguments: { path: 'late.log', content: `${child}-1` } }] },
      { text: 'The delete expired.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} clean` }],
      tools: ['reader'],
      approvalTimeout: '2s',
    });
    const [shown] = await waitForPending(handle, 1);
    expect(shown).toMatchObject({ path: ['reader'], expiresAt: expect.any(String) });
    const result = await handle.result();

    expect(result.text).toBe('Nobody answered in time.');
    expect(result.pending).toEqual([]);
    expect(await environment.tollgate.pending({ workflowId: handle.workflowId })).toEqual([]);
    const childHandle = environment.client.workflow.getHandle(`${handle.workflowId}/reader-1`);
    expect((await childHandle.describe()).status.name).toBe('COMPLETED');
    const childResult = await environment.tollgate.state(childHandle.workflowId);
    expect(childResult.audit).toEqual([
      expect.objectContaining({ approvalId: shown!.approvalId, decision: 'expired' }),
    ]);
    // The calling model read that its sub-agent got none of what it asked for; the call never ran.
    expect(String(toolMessageRead(parent)?.content)).toContain('Sub-agent "reader" was denied every call it asked for');
    expect(written(`${child}-1`)).toBe(false);
    await expect(environment.tollgate.decide(shown!.approvalId, { approved: true, approver: 'bo' })).rejects.toThrow(
      /expired|closed|decided/i,
    );
  });

  it('end with their parent when it is cancelled: nothing waits in the tree, and a decision after is refused', async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(parent, {
      toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} clean` } }],
    });
    environment.model.scriptFor(child, {
      toolCalls: [{ id: `${child}-1`, name: 'writeFile', arguments: { path: 'cancelled.log', content: `${child}-1` } }],
    });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} clean` }],
      tools: ['reader'],
    });
    const [shown] = await waitForPending(handle, 1);
    await handle.cancel();
    const childHandle = environment.client.workflow.getHandle(`${handle.workflowId}/reader-1`);
    const closed = await waitFor(
      () => childHandle.describe(),
      (description) => description.status.name !== 'RUNNING',
    );
    expect(closed.status.name).toBe('CANCELLED');
    // The parent ends once it has seen its sub-agent end: one workflow task after it.
    const parentClosed = await waitFor(
      () => handle.describe(),
      (description) => description.status.name !== 'RUNNING',
    );
    expect(parentClosed.status.name).toBe('CANCELLED');
    // The sub-agent's audit says how its call ended: denied, with the reason, and nothing waits in it.
    const childState = await environment.tollgate.state(childHandle.workflowId);
    expect(childState.pending).toEqual([]);
    expect(childState.audit).toEqual([
      expect.objectContaining({
        approvalId: shown!.approvalId,
        decision: 'denied',
        reason: 'Cancelled before anyone decided: the turn of sub-agent reader was cancelled.',
      }),
    ]);
    await expect(environment.tollgate.decide(shown!.approvalId, { approved: true, approver: 'bo' })).rejects.toThrow();
    expect(written(`${child}-1`)).toBe(false);
  });

  it("are denied with the reason when the parent fails, an approval of its own expiring with onExpire 'fail'", async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(parent, {
      toolCalls: [
        { id: `${parent}-1`, name: 'urgentFix', arguments: { what: 'the build' } },
        { id: `${parent}-2`, name: 'reader', arguments: { task: `${child} clean` } },
      ],
    });
    environment.model.scriptFor(child, {
      toolCalls: [{ id: `${child}-1`, name: 'writeFile', arguments: { path: 'failed.log', content: `${child}-1` } }],
    });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} fix and clean` }],
      tools: ['reader', 'urgentFix'],
    });
    const childHandle = environment.client.workflow.getHandle(`${handle.workflowId}/reader-1`);
    await expect(handle.result()).rejects.toThrow();

    expect((await handle.describe()).status.name).toBe('FAILED');
    // The sub-agent was not terminated still waiting: it denied its call with why, and ended.
    expect((await childHandle.describe()).status.name).toBe('COMPLETED');
    const childResult = await environment.tollgate.state(childHandle.workflowId);
    expect(childResult.pending).toEqual([]);
    expect(childResult.audit).toEqual([
      expect.objectContaining({
        toolName: 'writeFile',
        decision: 'denied',
        reason: expect.stringMatching(/^The turn above this sub-agent failed: Approval .* for urgentFix expired/),
      }),
    ]);
    expect(written(`${child}-1`)).toBe(false);
  });

  it("name in the parent's approvers search attribute only those who may decide the sub-agent's call", async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} clean` } }] },
      { text: 'Kept.' },
    );
    environment.model.scriptFor(
      child,
      { toolCalls: [{ id: `${child}-1`, name: 'writeFile', arguments: { path: 'rules.log', content: `${child}-1` } }] },
      { text: 'Not deleted.' },
    );
    // Ana and Bo decide, but Ana started the turn and may not approve her own request, down the tree too.
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${parent} clean` }],
      tools: ['reader'],
      requester: 'ana',
      approvalRules: { approvers: ['ana', 'bo'], allowSelfApproval: false },
    });
    const [shown] = await waitForPending(handle, 1);
    expect(shown).toMatchObject({ path: ['reader'], approvers: ['ana', 'bo'], selfApprovalAllowed: false });
    const childHandle = environment.client.workflow.getHandle(`${handle.workflowId}/reader-1`);
    for (const turn of [childHandle, handle]) {
      const attributes = await waitFor(
        async () => (await turn.describe()).typedSearchAttributes,
        (found) => (found.get(waitingToolsSearchAttribute) ?? []).includes('writeFile'),
      );
      expect(attributes.get(approversSearchAttribute)).toEqual(['bo']);
    }
    await environment.tollgate.decide(shown!.approvalId, { approved: false, approver: 'bo', reason: 'keep it' });
    expect((await handle.result()).text).toBe('Kept.');
  });

  it('are covered by a grant for the conversation, as the top turn itself would be', async () => {
    const parent = uniqueMarker();
    const child = uniqueMarker();
    const workflowId = `granted-${child.slice(1, -1)}`;
    await new GrantLedgerClient(environment.client, environment.taskQueue).grant(
      { person: 'bo' },
      { tools: ['writeFile'], scope: { type: 'conversation', conversationId: workflowId }, uses: 1 },
    );
    environment.model.scriptFor(
      parent,
      { toolCalls: [{ id: `${parent}-1`, name: 'reader', arguments: { task: `${child} clean` } }] },
      { text: 'Cleaned.' },
    );
    environment.model.scriptFor(
      child,
      { toolCalls: [{ id: `${child}-1`, name: 'writeFile', arguments: { path: 'cache.tmp', content: `${child}-1` } }] },
      { text: 'Deleted cache.tmp.' },
    );
    const handle = await environment.tollgate.startTurn(
      { messages: [{ role: 'user', content: `${parent} clean` }], tools: ['reader'], requester: 'ana' },
      { workflowId },
    );
    const result = await handle.result();

    expect(result.text).toBe('Cleaned.');
    const childResult = await environment.client.workflow.getHandle(`${workflowId}/reader-1`).result();
    expect(childResult.audit).toEqual([expect.objectContaining({ decision: 'approved', via: 'grant' })]);
    expect(written(`${child}-1`)).toBe(true);
  });
});
