import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { resultsOf } from '../../support/results-of';
import { toolApprovalResponseSignal } from '../../../src/workflows/definitions';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools, policy: { allowAutoApprove: true } });
});
afterAll(async () => {
  await environment?.close();
});

function runsOfCall(toolCallId: string) {
  return runs.filter((run) => run.toolCallId === toolCallId);
}

describe('agentTurn', () => {
  it('runs a tool that needs no approval at once and gives its result to the model', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query: 'tollgate' } }] },
      { text: 'A tollgate is a barrier.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} define tollgate` }],
    });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(result.text).toBe('A tollgate is a barrier.');
    expect(result.audit).toEqual([]);
    expect(runsOfCall(`${marker}-1`)).toHaveLength(1);
    const secondRequest = environment.model.requests.filter((request) =>
      JSON.stringify(request.messages).includes(marker),
    )[1];
    expect(secondRequest?.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: `${marker}-1`,
      content: 'definition of tollgate',
    });
  });

  it('pauses on a tool that needs approval, runs it once after a signal approves, and completes', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'old.log' } }] },
      { text: 'Deleted old.log.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete old.log` }],
    });
    const pending = await waitForPending(handle, 1);
    expect(pending[0]).toMatchObject({
      toolCallId: `${marker}-1`,
      toolName: 'deleteFile',
      input: { path: 'old.log' },
      step: 1,
    });
    expect(Date.parse(pending[0]!.requestedAt)).not.toBeNaN();
    const state = await environment.tollgate.state(handle.workflowId);
    expect(state.status).toBe('awaiting-approval');
    expect(state.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `${marker}-1`, toolName: 'deleteFile' },
        { type: 'tool-approval-request', approvalId: pending[0]!.approvalId, toolCallId: `${marker}-1` },
      ],
    });
    expect(runsOfCall(`${marker}-1`)).toHaveLength(0);

    await handle.signal(toolApprovalResponseSignal, {
      approvalId: pending[0]!.approvalId,
      approved: true,
      approver: 'ana',
    });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(runsOfCall(`${marker}-1`)).toHaveLength(1);
    expect(result.audit).toEqual([
      expect.objectContaining({
        approvalId: pending[0]!.approvalId,
        decision: 'approved',
        approver: 'ana',
        via: 'signal',
      }),
    ]);
    expect(result.messages[1]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: pending[0]!.approvalId, approved: true },
        {
          type: 'tool-result',
          toolCallId: `${marker}-1`,
          toolName: 'deleteFile',
          output: { type: 'json', value: { deleted: 'old.log' } },
        },
      ],
    });
  });

  it('denies by update with a reason: the tool never runs and the model is told why', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'prod.db' } }] },
      { text: 'I did not delete prod.db.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete prod.db` }],
    });
    const [approval] = await waitForPending(handle, 1);
    const recorded = await environment.tollgate.decide(approval!.approvalId, {
      approved: false,
      reason: 'production data',
      approver: 'ops',
    });
    expect(recorded).toMatchObject({ decision: 'denied', reason: 'production data', approver: 'ops', via: 'update' });
    const result = await handle.result();

    expect(runsOfCall(`${marker}-1`)).toHaveLength(0);
    expect(resultsOf(result.messages)).toEqual([
      {
        type: 'tool-result',
        toolCallId: `${marker}-1`,
        toolName: 'deleteFile',
        output: { type: 'execution-denied', reason: 'production data' },
      },
    ]);
    const told = environment.model.requests.filter((request) => JSON.stringify(request.messages).includes(marker))[1];
    const toolMessage = told?.messages.at(-1) as { role: string; content: string };
    expect(toolMessage.role).toBe('tool');
    expect(toolMessage.content).toContain('denied');
    expect(toolMessage.content).toContain('production data');
  });

  it('asks for approval only when an async needsApproval function says so', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-small`, name: 'transfer', arguments: { amount: 20, to: 'bob' } },
          { id: `${marker}-large`, name: 'transfer', arguments: { amount: 5000, to: 'eve' } },
        ],
      },
      { text: 'done' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} pay` }] });
    const pending = await waitForPending(handle, 1);
    expect(pending[0]).toMatchObject({ toolCallId: `${marker}-large`, input: { amount: 5000, to: 'eve' } });
    // The small transfer needed no approval and ran while the large one waits.
    await waitFor(
      async () => runsOfCall(`${marker}-small`).length,
      (count) => count === 1,
    );
    expect(runsOfCall(`${marker}-large`)).toHaveLength(0);
    await environment.tollgate.decide(pending[0]!.approvalId, { approved: true });
    await handle.result();
    expect(runsOfCall(`${marker}-large`)).toHaveLength(1);
  });

  it("treats approvalMode 'always_require' like needsApproval: true", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deploy', arguments: { service: 'api' } }] },
      { text: 'ok' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} deploy api` }],
    });
    const [approval] = await waitForPending(handle, 1);
    expect(approval!.toolName).toBe('deploy');
    expect(runsOfCall(`${marker}-1`)).toHaveLength(0);
    await environment.tollgate.decide(approval!.approvalId, { approved: true });
    expect((await handle.result()).status).toBe('completed');
    expect(runsOfCall(`${marker}-1`)).toHaveLength(1);
  });

  it('runs every call without asking in an autoApprove turn and records that in the audit', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'tmp.txt' } },
          { id: `${marker}-2`, name: 'lookup', arguments: { query: 'x' } },
        ],
      },
      { text: 'cleaned up' },
    );
    const result = await (
      await environment.tollgate.startTurn({
        messages: [{ role: 'user', content: `${marker} clean` }],
        autoApprove: true,
      })
    ).result();
    expect(result.status).toBe('completed');
    expect(runsOfCall(`${marker}-1`)).toHaveLength(1);
    expect(result.audit).toEqual([
      expect.objectContaining({
        toolName: 'deleteFile',
        decision: 'approved',
        approver: 'auto-approve',
        via: 'auto-approve',
      }),
    ]);
    expect(JSON.stringify(result.messages)).not.toContain('tool-approval-request');
  });

  it('pages the messages of a turn in its state query', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query: 'a' } }] },
      { toolCalls: [{ id: `${marker}-2`, name: 'lookup', arguments: { query: 'b' } }] },
      { text: 'done' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    await handle.result();
    const whole = await environment.tollgate.state(handle.workflowId);
    const page = await environment.tollgate.state(handle.workflowId, { fromMessage: 2, maxMessages: 2 });
    expect(whole.messageCount).toBe(5);
    expect(page.messageCount).toBe(5);
    expect(page.messages).toEqual(whole.messages.slice(2, 4));
  });

  it('stops after maxSteps even while the model keeps calling tools, with every call answered', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query: 'a' } }] },
      { toolCalls: [{ id: `${marker}-2`, name: 'lookup', arguments: { query: 'b' } }] },
    );
    const result = await (
      await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} loop` }], maxSteps: 2 })
    ).result();
    expect(result.status).toBe('max-steps-reached');
    expect(result.steps).toBe(2);
    expect(resultsOf(result.messages).map((part) => part.toolCallId)).toEqual([`${marker}-1`, `${marker}-2`]);
    expect(environment.model.remaining(marker)).toBe(0);
  });

  it('denies an expired approval with a reason the model can read and goes on', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'a' } }] },
      { text: 'It expired.' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete a` }],
      approvalTimeout: '1s',
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(runsOfCall(`${marker}-1`)).toHaveLength(0);
    const [denied] = resultsOf(result.messages);
    expect(denied?.output).toEqual({ type: 'execution-denied', reason: expect.stringMatching(/expired/i) });
    expect(result.audit[0]).toMatchObject({ decision: 'expired', via: 'timeout', expiresAt: expect.any(String) });
    // A decision after expiry is refused, not applied.
    await expect(environment.tollgate.decide(result.audit[0]!.approvalId, { approved: true })).rejects.toMatchObject({
      name: 'ApprovalDecisionError',
    });
  });
});
