import {
  agentTurnEventsQuery,
  pendingToolApprovalsQuery,
  toolApprovalResponseSignal,
} from '../../../src/workflows/definitions';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { RecordingNotifier } from '../../support/recording-notifier';
import { createTestTools } from '../../support/test-tools';

const notifier = new RecordingNotifier();
const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools, notifiers: [notifier] });
});
afterAll(async () => {
  await environment?.close();
});

async function waitingTurn(marker: string, extra: object, on: TestEnvironment = environment, tool = 'transfer') {
  const call =
    tool === 'transfer'
      ? { id: `${marker}-1`, name: 'transfer', arguments: { amount: 5000, to: 'acme' } }
      : { id: `${marker}-1`, name: tool, arguments: { service: 'api' } };
  on.model.scriptFor(marker, { toolCalls: [call] }, { text: 'done' });
  const handle = await on.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} pay acme` }],
    ...extra,
  });
  const [approval] = await waitForPending(handle, 1);
  return { handle, approval: approval! };
}

describe('approver rights', () => {
  it('refuses an approver who is not on the list, changing nothing, and takes one who is', async () => {
    const marker = uniqueMarker();
    const { handle, approval } = await waitingTurn(marker, { approvalRules: { approvers: ['ana', 'bo'] } });
    expect(approval.approvers).toEqual(['ana', 'bo']);
    await expect(
      environment.tollgate.decide(approval.approvalId, { approved: true, approver: 'mallory' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('"mallory" may not decide'),
    });
    await expect(environment.tollgate.decide(approval.approvalId, { approved: true })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await handle.signal(toolApprovalResponseSignal, {
      approvalId: approval.approvalId,
      approved: true,
      approver: 'mallory',
    });
    expect(await handle.query(pendingToolApprovalsQuery)).toHaveLength(1);

    await environment.tollgate.decide(approval.approvalId, { approved: true, approver: 'bo' });
    const result = await handle.result();
    expect(result.audit[0]).toMatchObject({ decision: 'approved', approver: 'bo' });
    expect(result.ignoredDecisions).toEqual([expect.objectContaining({ cause: 'forbidden' })]);
  });

  it('does not let the requester approve their own request when self-approval is off', async () => {
    const marker = uniqueMarker();
    const { handle, approval } = await waitingTurn(marker, {
      requester: 'ana',
      approvalRules: { allowSelfApproval: false },
    });
    await expect(
      environment.tollgate.decide(approval.approvalId, { approved: true, approver: 'ana' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('requested this call and may not approve it'),
    });
    await environment.tollgate.decide(approval.approvalId, { approved: true, approver: 'bo' });
    expect((await handle.result()).audit[0]).toMatchObject({ approver: 'bo' });
  });

  it('needs two distinct approvers for a quorum of two; a repeat by the first does not count twice', async () => {
    const marker = uniqueMarker();
    const { handle, approval } = await waitingTurn(marker, {
      approvalRules: { approvers: ['ana', 'bo', 'cy'], quorum: 2 },
    });
    const first = await environment.tollgate.decide(approval.approvalId, { approved: true, approver: 'ana' });
    expect(first).toMatchObject({ decision: 'awaiting-quorum', votes: [expect.objectContaining({ approver: 'ana' })] });
    const again = await environment.tollgate.decide(approval.approvalId, { approved: true, approver: 'ana' });
    expect(again.decision).toBe('awaiting-quorum');
    expect(await handle.query(pendingToolApprovalsQuery)).toEqual([
      expect.objectContaining({ votes: [expect.objectContaining({ approver: 'ana' })] }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);

    const second = await environment.tollgate.decide(approval.approvalId, { approved: true, approver: 'cy' });
    expect(second).toMatchObject({
      decision: 'approved',
      votes: [expect.objectContaining({ approver: 'ana' }), expect.objectContaining({ approver: 'cy' })],
    });
    await handle.result();
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
  });

  it('lets one denial end a quorum vote', async () => {
    const marker = uniqueMarker();
    const { handle, approval } = await waitingTurn(marker, { approvalRules: { quorum: 2 } });
    await environment.tollgate.decide(approval.approvalId, { approved: true, approver: 'ana' });
    await environment.tollgate.decide(approval.approvalId, { approved: false, approver: 'bo', reason: 'over budget' });
    const result = await handle.result();
    expect(result.audit[0]).toMatchObject({ decision: 'denied', approver: 'bo', reason: 'over budget' });
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
  });
});

describe('approval notifications', () => {
  // Who is told is the operator's choice, per tool.
  let notifying: TestEnvironment;
  beforeAll(async () => {
    notifying = await createTestEnvironment({
      tools,
      notifiers: [notifier],
      policy: {
        tools: {
          transfer: {
            notify: [{ type: 'slack', channel: 'C-payments' }],
            remindAfter: '1s',
            escalateTo: [{ type: 'slack', channel: 'C-managers' }],
          },
          deploy: {
            notify: [
              { type: 'slack', channel: 'C1' },
              { type: 'email', to: ['ana@example.com'] },
            ],
          },
        },
      },
    });
  });
  afterAll(async () => {
    await notifying?.close();
  });

  it('announces a request, reminds on another channel when nobody decides, and shows the outcome on both', async () => {
    const marker = uniqueMarker();
    const { handle, approval } = await waitingTurn(marker, {}, notifying);
    await waitFor(
      async () => notifier.sent.filter((entry) => entry.approvalId === approval.approvalId),
      (sent) => sent.length === 2,
    );
    expect(notifier.sent.filter((entry) => entry.approvalId === approval.approvalId)).toEqual([
      { kind: 'request', approvalId: approval.approvalId, channel: 'C-payments' },
      { kind: 'reminder', approvalId: approval.approvalId, channel: 'C-managers' },
    ]);
    await notifying.tollgate.decide(approval.approvalId, { approved: false, approver: 'ana' });
    await handle.result();
    expect(notifier.resolutions.filter((entry) => entry.approvalId === approval.approvalId)).toEqual([
      expect.objectContaining({ decision: 'denied' }),
      expect.objectContaining({ decision: 'denied' }),
    ]);
  });

  it('retries a failing channel and never lets it block or fail the turn', async () => {
    const marker = uniqueMarker();
    notifier.failuresLeft = 1;
    const { handle, approval } = await waitingTurn(marker, {}, notifying, 'deploy');
    // The decision is taken while the notices are still being retried; no email notifier exists at all.
    await notifying.tollgate.decide(approval.approvalId, { approved: true, approver: 'ana' });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    // The failed first attempt is retried; the notice gets through once.
    await waitFor(
      async () => notifier.sent.filter((entry) => entry.approvalId === approval.approvalId).length,
      (count) => count === 1,
    );
    const events = await handle.query(agentTurnEventsQuery);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'notification-failed', detail: expect.stringContaining('No email notifier') }),
      ]),
    );
  });

  it("tries a notice only as often as the worker's owner allows", async () => {
    const limited = await createTestEnvironment({
      tools,
      notifiers: [notifier],
      policy: { tools: { deploy: { notify: [{ type: 'slack', channel: 'C-limited' }] } } },
      activityLimits: { notice: { maximumAttempts: 1 } },
    });
    try {
      const marker = uniqueMarker();
      notifier.failuresLeft = 1;
      const { handle, approval } = await waitingTurn(marker, {}, limited, 'deploy');
      const events = await waitFor(
        () => handle.query(agentTurnEventsQuery),
        (list) => list.some((event) => event.type === 'notification-failed'),
      );
      expect(events.find((event) => event.type === 'notification-failed')?.detail).toContain('slack is down');
      await limited.tollgate.decide(approval.approvalId, { approved: false, approver: 'ana' });
      await handle.result();
      // One attempt, which failed: no retry got the notice through.
      expect(notifier.sent.filter((entry) => entry.approvalId === approval.approvalId)).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});
