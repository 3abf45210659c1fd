import type { ToolResultPart } from '../../../src/protocol';
import * as definitions from '../../../src/workflows/definitions';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { queryWithJson, signalWithJson, updateWithJson } from '../../support/raw-temporal';

// No sender's value is turned into text or a number by its own methods, and none stops a turn or a conversation:
// every signal, update and query of both, sent the shapes that break a careless reader. Updates refuse them,
// signals record or ignore them, queries answer, and the turn can still be decided.

const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => environment?.close());

/** JSON texts a sender can write: names of the methods a coercion calls, prototype keys, numbers past the edge. */
function hostileShapes(approvalId: string, turnId: string): string[] {
  const id = JSON.stringify(approvalId);
  const shapes = [
    '{"toString":"x"}',
    '{"toString":"x","valueOf":"y"}',
    '{"toJSON":"x"}',
    '{"constructor":{"prototype":{"approved":true}}}',
    '{"__proto__":{"approved":true}}',
  ];
  return [
    ...shapes,
    'true',
    '1e400',
    '-1e400',
    '"NaN"',
    '"Infinity"',
    '[]',
    ...shapes.map((shape) => `{"reason":${shape}}`),
    ...shapes.map((shape) => `{"approvalId":${shape},"approved":true}`),
    ...shapes.map((shape) => `{"approvalId":${id},"approved":true,"approver":${shape}}`),
    ...shapes.map((shape) => `{"approvalId":${id},"approved":true,"reason":${shape}}`),
    `{"approvalId":${id},"approved":"true"}`,
    `{"approvalId":${id},"approved":1}`,
    `{"approvalId":${id},"approved":true,"__proto__":{"approver":"ana"}}`,
    `{"approvalId":${id},"approved":true,"signature":{"keyId":{"toString":"k"},"signedAt":"now","value":"v"}}`,
    ...shapes.map((shape) => `{"responses":${shape}}`),
    `{"responses":[{"approvalId":${id},"approved":true,"toString":"x"}]}`,
    `{"responses":[{"approvalId":${id},"approved":true,"approver":{"valueOf":1}}]}`,
    `{"responses":{"length":1e9,"0":{"approvalId":${id},"approved":true}}}`,
    ...shapes.map((shape) => `{"toolCallId":${shape},"output":{"type":"text","value":"x"}}`),
    `{"toolCallId":"x","output":{"type":"text","value":{"toString":"x"}}}`,
    `{"fromMessage":"NaN","maxMessages":1e400}`,
    `{"fromMessage":{"valueOf":5},"maxMessages":{"toString":"9"}}`,
    `{"fromMessage":-1e400,"maxMessages":"-Infinity"}`,
    `{"turnId":${JSON.stringify(turnId)},"pending":[{"approvalId":${id},"toString":"x"}]}`,
    `{"turnId":{"toString":"x"},"pending":[]}`,
    `{"content":{"toString":"x"}}`,
    `{"content":[{"type":"text","text":{"toString":"x"}}],"requester":{"valueOf":"ana"}}`,
    `{"content":"hi","__proto__":{"requester":"ana"}}`,
  ];
}

/**
 * What is sent to `name`. A supersede request needs no rights and any readable reason counts (a conversation's
 * newer message denies what its turn waits for), so it is sent only what it cannot read.
 */
function shapesFor(name: string, approvalId: string, turnId: string): string[] {
  if (name !== 'supersedeTurn') return hostileShapes(approvalId, turnId);
  return [
    'true',
    '1e400',
    '"NaN"',
    '[]',
    '{"reason":{"toString":"x"}}',
    '{"reason":{"toString":"x","valueOf":"y"}}',
    '{"reason":[1,{"toString":"x"}]}',
  ];
}

/** Every message handler name the public contract defines, by kind. */
const handlers = Object.values(definitions).flatMap((definition) => {
  const { type, name } = (definition ?? {}) as { type?: unknown; name?: unknown };
  return (type === 'signal' || type === 'update' || type === 'query') && typeof name === 'string'
    ? [{ kind: type as 'signal' | 'update' | 'query', name }]
    : [];
});

/** Which workflow handles each: tested on that workflow. */
const conversationHandlers = new Set(['sendMessage', 'conversationState', 'turnPendingApprovals']);

/** Sends `text` to `name` of `kind` on `workflowId`; an update's refusal and a query's failure come back as text. */
async function send(kind: 'signal' | 'update' | 'query', workflowId: string, name: string, text: string) {
  if (kind === 'signal') return signalWithJson(environment.client, workflowId, name, text);
  if (kind === 'update') return updateWithJson(environment.client, workflowId, name, text);
  return queryWithJson(environment.client, workflowId, name, text);
}

const resultsOf = (messages: { role: string; content: unknown }[]) =>
  messages.flatMap((message) =>
    message.role === 'tool' ? (message.content as ToolResultPart[]).filter((part) => part.type === 'tool-result') : [],
  );

describe('the contract', () => {
  it('defines the message handlers these tests send hostile shapes to, and no other', () => {
    expect(handlers.map(({ kind, name }) => `${kind} ${name}`).sort()).toEqual([
      'query agentTurnEvents',
      'query agentTurnState',
      'query conversationState',
      'query pendingToolApprovals',
      'signal subAgentDecisions',
      'signal subAgentDecisionsAnswer',
      'signal supersedeTurn',
      'signal toolApprovalResponse',
      'signal turnPendingApprovals',
      'update respondToToolApprovals',
      'update sendMessage',
      'update submitToolOutput',
    ]);
  });
});

describe('agentTurn, sent hostile shapes on every signal, update and query', () => {
  it('refuses or records each, still waits, and runs the tool once a person approves', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'hostile.txt' } }] },
      { text: 'deleted' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    const approvalId = approval!.approvalId;
    let signals = 0;
    for (const { kind, name } of handlers.filter(({ name }) => !conversationHandlers.has(name))) {
      for (const text of shapesFor(name, approvalId, handle.workflowId)) {
        const answer = await send(kind, handle.workflowId, name, text);
        // An update refuses (its answer is the refusal's message); a query answers.
        if (kind === 'update') expect(answer).toEqual(expect.any(String));
        if (kind === 'query') expect(typeof answer).toBe('string');
        if (kind === 'signal') signals += 1;
      }
    }
    // Every signal was read, none applied: each is kept as ignored (the most recent 50) or counted.
    const state = await waitFor(
      () => environment.tollgate.state(handle.workflowId),
      (current) => current.ignoredDecisions.length + (current.ignoredDecisionsNotKept ?? 0) === signals,
    );
    expect(state.status).toBe('awaiting-approval');
    expect(state.pending.map(({ approvalId: id }) => id)).toEqual([approvalId]);
    expect(state.audit).toEqual([]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);

    await environment.tollgate.decide(approvalId, { approved: true, approver: 'ana' });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(resultsOf(result.messages)).toEqual([
      expect.objectContaining({
        toolCallId: `${marker}-1`,
        output: { type: 'json', value: { deleted: 'hostile.txt' } },
      }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
  });

  it('records a supersede request whose reason names toString, and goes on (it stopped the turn before)', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'kept.txt' } }] },
      { text: 'deleted' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    await signalWithJson(environment.client, handle.workflowId, 'supersedeTurn', '{"reason":{"toString":"x"}}');
    const state = await waitFor(
      () => environment.tollgate.state(handle.workflowId),
      (current) => current.ignoredDecisions.length === 1,
    );
    expect(state.ignoredDecisions[0]).toMatchObject({
      cause: 'invalid',
      message: 'Invalid supersedeTurn signal: the reason must be text, and this one cannot be read as text.',
    });
    await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'ana' });
    expect((await handle.result()).status).toBe('completed');
  });
});

describe('conversation, sent hostile shapes on every signal, update and query', () => {
  it('refuses or ignores each, keeps its running turn, and answers the next message', async () => {
    const marker = uniqueMarker();
    const conversationId = `chat-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'chat.txt' } }] },
      { text: 'deleted' },
    );
    const { turnId } = await environment.tollgate.sendMessage(conversationId, { content: `${marker} delete` });
    const shown = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.pending.length === 1,
    );
    const approvalId = shown.pending[0]!.approvalId;
    let signals = 0;
    for (const { kind, name } of handlers.filter(({ name }) => conversationHandlers.has(name))) {
      for (const text of shapesFor(name, approvalId, turnId)) {
        const answer = await send(kind, conversationId, name, text);
        if (kind === 'update') expect(answer).toEqual(expect.any(String));
        if (kind === 'query') expect(typeof answer).toBe('string');
        if (kind === 'signal') signals += 1;
      }
    }
    const after = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.refusedSignals === signals,
    );
    expect(after.currentTurnId).toBe(turnId);
    expect(after.queued).toEqual([]);
    expect(after.pending.map((pending) => pending.approvalId)).toEqual([approvalId]);

    await environment.tollgate.decide(approvalId, { approved: true, approver: 'ana' });
    await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.turnCount === 1 && state.currentTurnId === undefined,
      20_000,
    );
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
  });
});
