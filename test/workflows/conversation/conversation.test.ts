import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => {
  await environment?.close();
});

const runsOf = (toolCallId: string) => runs.filter((run) => run.toolCallId === toolCallId);

describe('conversation', () => {
  it('answers each message with a turn of its own, queueing a message that arrives while approvals are pending', async () => {
    const marker = uniqueMarker();
    const conversationId = `chat-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'old.log' } }] },
      { text: 'deleted old.log' },
      { text: 'you are welcome' },
    );
    const first = await environment.tollgate.sendMessage(conversationId, { content: `${marker} delete old.log` });
    expect(first).toEqual({ turnId: `${conversationId}/turn-1`, queued: false });
    const waiting = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.pending.length === 1,
    );
    expect(waiting.currentTurnId).toBe(`${conversationId}/turn-1`);
    expect(waiting.history[0]).toEqual({ role: 'user', content: `${marker} delete old.log` });

    const second = await environment.tollgate.sendMessage(conversationId, { content: 'thanks!' });
    expect(second).toEqual({ turnId: `${conversationId}/turn-2`, queued: true });
    expect((await environment.tollgate.conversationState(conversationId)).queued).toHaveLength(1);

    await environment.tollgate.decide(waiting.pending[0]!.approvalId, { approved: true });
    const done = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.turnCount === 2 && state.currentTurnId === undefined,
    );
    expect(runsOf(`${marker}-1`)).toHaveLength(1);
    expect(done.history.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(done.history.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'you are welcome' }] });
    // The second turn saw the whole first exchange.
    const lastRequest = environment.model.requestsFor(marker).at(-1);
    expect(lastRequest?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
  });

  it('continues as new between turns, keeping the history and a queued message, never a pending approval', async () => {
    const marker = uniqueMarker();
    const conversationId = `chat-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'x' } }] },
      { text: 'first answer' },
      { text: 'second answer' },
    );
    const settings = { continueAsNewAfterTurns: 1 };
    await environment.tollgate.sendMessage(conversationId, { content: `${marker} one` }, settings);
    const handle = environment.client.workflow.getHandle(conversationId);
    const firstRun = (await handle.describe()).runId;
    const turn = environment.tollgate.turn(`${conversationId}/turn-1`);
    const [approval] = await waitForPending(turn, 1);
    await environment.tollgate.sendMessage(conversationId, { content: 'two' });
    // The run that holds the pending approval does not continue as new under it.
    expect((await handle.describe()).runId).toBe(firstRun);
    await environment.tollgate.decide(approval!.approvalId, { approved: true });

    const done = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.turnCount === 2 && state.currentTurnId === undefined && state.queued.length === 0,
    );
    expect((await handle.describe()).runId).not.toBe(firstRun);
    expect(done.history.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      `${marker} one`,
      'two',
    ]);
    expect(done.history.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'second answer' }] });
    expect(runsOf(`${marker}-1`)).toHaveLength(1);
  });
});
