import { supersededReason } from '../../../src/workflows/conversation/conversation';
import { RecordingNotifier } from '../../support/recording-notifier';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { resultsOf } from '../../support/results-of';

const { tools, runs } = createTestTools();
const notifier = new RecordingNotifier();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({
    tools,
    notifiers: [notifier],
    policy: {
      tools: {
        deploy: { approvers: ['ana'] },
        deleteFile: { notify: [{ type: 'slack', channel: 'C-halt' }] },
        transfer: { approvalTimeout: '1s', onExpire: 'fail' },
      },
    },
  });
});
afterAll(async () => environment?.close());

describe('agentTurn, where the first version went wrong', () => {
  it('supersedes a call that only named approvers may decide', async () => {
    const marker = uniqueMarker();
    const conversationId = `chat-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deploy', arguments: { service: 'api' } }] },
      { text: 'status is green' },
    );
    await environment.tollgate.sendMessage(
      conversationId,
      { content: `${marker} deploy api` },
      { onMessageWhilePending: 'supersede' },
    );
    await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.pending.length === 1,
    );
    await environment.tollgate.sendMessage(conversationId, { content: 'never mind, show the status' });
    const done = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.turnCount === 2 && state.currentTurnId === undefined,
    );
    expect(resultsOf(done.history)[0]?.output).toEqual({ type: 'execution-denied', reason: supersededReason });
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
    expect(done.history.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'status is green' }] });
  });

  it("keeps a failed turn's messages, and the tools that ran, in the conversation", async () => {
    const marker = uniqueMarker();
    const conversationId = `chat-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query: 'balance' } }] },
      { toolCalls: [{ id: `${marker}-2`, name: 'transfer', arguments: { amount: 500, to: 'acme' } }] },
    );
    await environment.tollgate.sendMessage(conversationId, { content: `${marker} pay acme` });
    const done = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.lastFailure !== undefined && state.currentTurnId === undefined,
      20_000,
    );
    expect(done.lastFailure?.message).toMatch(/expired/);
    expect(resultsOf(done.history)).toEqual([
      expect.objectContaining({ toolCallId: `${marker}-1`, output: { type: 'text', value: 'definition of balance' } }),
    ]);
    const whole = await environment.tollgate.readTranscript(done.transcript!);
    expect(JSON.stringify(whole)).toContain(`${marker}-1`);
  });

  it('shows a halted request as no longer decidable where it was announced', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(marker, {
      toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'a' } }],
    });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} go` }],
      approvalWait: 'halt',
    });
    const result = await handle.result();
    const approvalId = result.pending[0]!.approvalId;
    expect(notifier.sent.filter((entry) => entry.approvalId === approvalId)).toHaveLength(1);
    expect(notifier.resolutions.filter((entry) => entry.approvalId === approvalId)).toEqual([
      expect.objectContaining({ decision: 'expired' }),
    ]);
  });

  it('recognises a retried decision, and judges one on a finished turn by the same rules', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'a' } }] },
      { text: 'done' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    const first = await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'bo' });
    const retried = await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'bo' });
    expect(retried).toEqual(first);
    await handle.result();
    const history = await handle.fetchHistory();
    const accepted = (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted).toHaveLength(1);
    // The turn has ended: a repeat is answered as such, a change of mind is refused with the reason.
    await expect(
      environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'cy' }),
    ).resolves.toMatchObject({ decision: 'approved', approver: 'bo', outcome: 'repeat' });
    await expect(
      environment.tollgate.decide(approval!.approvalId, { approved: false, approver: 'cy' }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });
});
