import { formatApprovalId, type ToolResultPart } from '../../../src/protocol';
import { uniqueMarker, waitFor } from '../../support/test-environment';
import { expectProblem } from '../gateway-fixture';
import { useTurnGateway } from '../../support/turn-gateway-fixture';

const stack = useTurnGateway();

type ScriptedCall = { suffix: string; name: string; arguments: unknown };

/** Starts a turn over REST whose model calls `calls`, and waits until every call needing approval is pending. */
async function startTurn(calls: ScriptedCall[], waiting: number) {
  const marker = uniqueMarker();
  stack.environment.model.scriptFor(
    marker,
    {
      toolCalls: calls.map((call) => ({ id: `${marker}-${call.suffix}`, name: call.name, arguments: call.arguments })),
    },
    { text: 'finished' },
  );
  const started = await stack.gateway.call('POST', '/v1/turns', {
    body: { messages: [{ role: 'user', content: `${marker} tidy up` }] },
  });
  expect(started.status).toBe(201);
  const { workflowId } = started.body as { workflowId: string };
  expect(started.headers.get('location')).toBe(`/v1/turns/${workflowId}`);
  const listed = await waitFor(
    () => stack.gateway.call('GET', `/v1/approvals?workflowId=${encodeURIComponent(workflowId)}`),
    (response) => response.body.approvals?.length === waiting,
  );
  const approvals = listed.body.approvals as Array<{ approvalId: string; toolCallId: string; toolName: string }>;
  const idOf = (suffix: string) =>
    approvals.find((approval) => approval.toolCallId === `${marker}-${suffix}`)?.approvalId as string;
  return { marker, workflowId, approvals, idOf };
}

async function finishedState(workflowId: string) {
  const response = await waitFor(
    () => stack.gateway.call('GET', `/v1/turns/${encodeURIComponent(workflowId)}`),
    (current) => current.body.status === 'completed',
  );
  return response.body;
}

function resultsOf(messages: Array<{ role: string; content: unknown }>): ToolResultPart[] {
  return messages.flatMap((message) =>
    message.role === 'tool' ? (message.content as ToolResultPart[]).filter((part) => part.type === 'tool-result') : [],
  );
}

const deleteFile = (suffix: string, path: string): ScriptedCall => ({
  suffix,
  name: 'deleteFile',
  arguments: { path },
});

describe('approval gateway decisions', () => {
  it('starts a turn, lists what waits, approves it, and the tool runs to a completed turn', async () => {
    const { marker, workflowId, approvals, idOf } = await startTurn([deleteFile('a', 'a.txt')], 1);
    expect(approvals[0]).toMatchObject({ workflowId, toolName: 'deleteFile', input: { path: 'a.txt' } });
    const approvalId = idOf('a');

    const shown = await stack.gateway.call('GET', `/v1/approvals/${approvalId}`);
    expect(shown).toMatchObject({ status: 200, body: { status: 'pending', workflowId, approvalId } });
    const byTool = await stack.gateway.call('GET', `/v1/approvals?workflowId=${workflowId}&tool=deploy`);
    expect(byTool.body.approvals).toEqual([]);

    const decided = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      body: { approved: true },
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ approvalId, decision: 'approved', approver: 'ana', via: 'update' });

    const state = await finishedState(workflowId);
    expect(state).toMatchObject({ workflowId, status: 'completed', text: 'finished', pending: [] });
    expect(state.audit).toEqual([expect.objectContaining({ approvalId, decision: 'approved', approver: 'ana' })]);
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-a`)).toHaveLength(1);
    const after = await stack.gateway.call('GET', `/v1/approvals/${approvalId}`);
    expect(after.body).toMatchObject({ status: 'decided', decision: 'approved', approver: 'ana', workflowId });
    expect(stack.gateway.audit.list({ approvalId })).toEqual([
      expect.objectContaining({ approver: 'ana', channel: 'rest', workflowId, approved: true, outcome: 'recorded' }),
    ]);
  });

  it('denies with a reason the model reads, takes the approver from the token, and never runs the tool', async () => {
    const { marker, workflowId, idOf } = await startTurn([deleteFile('a', 'keep.txt')], 1);
    const decided = await stack.gateway.call('POST', `/v1/approvals/${idOf('a')}/decision`, {
      as: 'bob',
      body: { approved: false, reason: 'keep it' },
    });
    expect(decided.body).toMatchObject({ decision: 'denied', reason: 'keep it', approver: 'bob' });
    const state = await finishedState(workflowId);
    expect(resultsOf(state.messages)).toEqual([
      expect.objectContaining({ toolCallId: `${marker}-a`, output: { type: 'execution-denied', reason: 'keep it' } }),
    ]);
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-a`)).toHaveLength(0);
  });

  it('decides a batch all or nothing', async () => {
    const { marker, workflowId, idOf } = await startTurn([deleteFile('a', 'a.txt'), deleteFile('b', 'b.txt')], 2);
    const path = `/v1/turns/${workflowId}/decisions`;
    const partlyUnknown = await stack.gateway.call('POST', path, {
      body: {
        responses: [
          { approvalId: idOf('a'), approved: true },
          { approvalId: 'nope', approved: true },
        ],
      },
    });
    expectProblem(partlyUnknown, 404, 'unknown-approval');
    expect((await stack.gateway.call('GET', `/v1/approvals?workflowId=${workflowId}`)).body.approvals).toHaveLength(2);

    const decided = await stack.gateway.call('POST', path, {
      body: {
        responses: [
          { approvalId: idOf('a'), approved: true },
          { approvalId: idOf('b'), approved: false, reason: 'not b' },
        ],
      },
    });
    expect(decided.status).toBe(200);
    expect(decided.body.decisions.map((entry: { decision: string }) => entry.decision)).toEqual(['approved', 'denied']);
    const state = await finishedState(workflowId);
    expect(resultsOf(state.messages).map((part) => [part.toolCallId, part.output.type])).toEqual([
      [`${marker}-a`, 'json'],
      [`${marker}-b`, 'execution-denied'],
    ]);
  });

  it('answers 404 for an unknown approval or turn', async () => {
    const missingTurn = formatApprovalId('turn-that-never-was', 'abc');
    const unknown = `unknown-${uniqueMarker()}`;
    for (const approvalId of [unknown, missingTurn]) {
      const decision = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
        body: { approved: true },
      });
      expectProblem(decision, 404, 'unknown-approval');
      expectProblem(await stack.gateway.call('GET', `/v1/approvals/${approvalId}`), 404, 'unknown-approval');
    }
    expectProblem(await stack.gateway.call('GET', '/v1/turns/turn-that-never-was'), 404, 'unknown-turn');
    const batch = await stack.gateway.call('POST', '/v1/turns/turn-that-never-was/decisions', {
      body: { responses: [{ approvalId: missingTurn, approved: true }] },
    });
    expectProblem(batch, 404, 'unknown-turn');
    expect(stack.gateway.audit.list({ approvalId: unknown })).toEqual([
      expect.objectContaining({
        outcome: 'refused',
        refusal: { code: 'unknown-approval', detail: expect.any(String) },
      }),
    ]);
  });

  it('keeps the first decision: an identical repeat is 200, a conflicting one 409 and audited as refused', async () => {
    const { marker, workflowId, idOf } = await startTurn([deleteFile('a', 'a.txt'), deleteFile('b', 'b.txt')], 2);
    const approvalId = idOf('a');
    const path = `/v1/approvals/${approvalId}/decision`;
    const first = await stack.gateway.call('POST', path, { body: { approved: true } });
    const repeat = await stack.gateway.call('POST', path, { as: 'bob', body: { approved: true } });
    // The same decision as recorded; the turn says this one changed nothing.
    expect(repeat).toMatchObject({ status: 200, body: { ...first.body, outcome: 'repeat' } });

    const conflict = await stack.gateway.call('POST', path, { as: 'eve', body: { approved: false, reason: 'stop' } });
    expectProblem(conflict, 409, 'conflict');
    expect(conflict.body).toMatchObject({
      approvalId,
      workflowId,
      detail: expect.stringContaining('already approved by ana'),
    });

    // The turn finishes; its record still answers repeats and conflicts the same way.
    await stack.gateway.call('POST', `/v1/approvals/${idOf('b')}/decision`, { body: { approved: true } });
    await finishedState(workflowId);
    expect(await stack.gateway.call('POST', path, { body: { approved: true } })).toMatchObject({
      status: 200,
      body: { ...first.body, outcome: 'repeat' },
    });
    expectProblem(await stack.gateway.call('POST', path, { as: 'eve', body: { approved: false } }), 409, 'conflict');
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-a`)).toHaveLength(1);

    const audit = await stack.gateway.call('GET', `/v1/audit?approvalId=${encodeURIComponent(approvalId)}`, {
      as: 'auditor',
    });
    expect(
      audit.body.attempts.map((attempt: { approver: string; outcome: string }) => [attempt.approver, attempt.outcome]),
    ).toEqual([
      ['ana', 'recorded'],
      ['bob', 'repeat'],
      ['eve', 'refused'],
      ['ana', 'repeat'],
      ['eve', 'refused'],
    ]);
    expect(audit.body.attempts[2]).toMatchObject({
      approved: false,
      reason: 'stop',
      refusal: { code: 'conflict', detail: expect.stringContaining('first decision wins') },
    });
  });

  it('judges decisions on a terminated turn as on a finished one: repeat 200, conflict 409, left waiting 409', async () => {
    const { workflowId, idOf } = await startTurn([deleteFile('a', 'a.txt'), deleteFile('b', 'b.txt')], 2);
    const path = `/v1/approvals/${idOf('a')}/decision`;
    const first = await stack.gateway.call('POST', path, { body: { approved: true } });
    expect(first.status).toBe(200);
    await waitFor(
      () => stack.gateway.call('GET', `/v1/turns/${encodeURIComponent(workflowId)}`),
      (current) => current.body.pending?.length === 1,
    );
    // A terminated turn has no result to judge by: the gateway judges by the state it reads, with the same rules.
    await stack.environment.client.workflow.getHandle(workflowId).terminate('operator stopped it');

    expect(await stack.gateway.call('POST', path, { as: 'bob', body: { approved: true } })).toMatchObject({
      status: 200,
      body: { ...first.body, outcome: 'repeat' },
    });
    const conflict = await stack.gateway.call('POST', path, { as: 'eve', body: { approved: false } });
    expectProblem(conflict, 409, 'conflict');
    expect(conflict.body.detail).toContain('first decision wins');
    const waiting = await stack.gateway.call('POST', `/v1/approvals/${idOf('b')}/decision`, {
      body: { approved: true },
    });
    expectProblem(waiting, 409, 'turn-closed');
    expect(waiting.body.detail).toMatch(/without a decision on .*takes no more decisions/);
  });

  it('refuses a decision after expiry with 409 saying it expired', async () => {
    const { workflowId, idOf } = await startTurn([{ suffix: 'job', name: 'launch', arguments: { job: 'nightly' } }], 1);
    const state = await finishedState(workflowId);
    expect(state.audit).toEqual([expect.objectContaining({ decision: 'expired' })]);
    const late = await stack.gateway.call('POST', `/v1/approvals/${idOf('job')}/decision`, {
      body: { approved: false },
    });
    expectProblem(late, 409, 'expired');
    expect(late.body.detail).toContain('expired');
  });
});
