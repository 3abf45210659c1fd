import { inlineTranscriptMaxBytes, type AgentTurnResult } from '../../../src/protocol';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const { tools } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => environment?.close());

/** Runs a turn that calls `deleteFile` once (approved) and then answers, from `prompt` (which starts with `marker`). */
async function approvedTurn(marker: string, prompt: string, stream?: boolean): Promise<AgentTurnResult> {
  environment.model.scriptFor(
    marker,
    { text: 'Deleting it.', toolCalls: [{ id: 'call-1', name: 'deleteFile', arguments: { path: 'old.log' } }] },
    { text: 'deleted old.log' },
  );
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: prompt }],
    ...(stream !== undefined && { stream }),
  });
  const [approval] = await waitForPending(handle, 1);
  await environment.tollgate.decide(approval!.approvalId, { approved: true });
  return handle.result();
}

/** A turn's result with what differs between any two runs (ids, times, the prompt's marker) left out. */
function comparable(result: AgentTurnResult, marker: string): unknown {
  return JSON.parse(
    JSON.stringify({ ...result, audit: result.audit.map(({ decision, toolName }) => ({ decision, toolName })) })
      .replaceAll(marker, '<marker>')
      .replace(/"approvalId":"[^"]*"/g, '"approvalId":"<id>"')
      .replace(/"signature":"[^"]*"/g, '"signature":"<sig>"'),
  );
}

describe('agentTurn: the model streams only for a turn someone follows', () => {
  it('asks for the whole answer in a turn nobody follows, and ends as a followed turn does', async () => {
    const quiet = uniqueMarker();
    const followed = uniqueMarker();
    const quietResult = await approvedTurn(quiet, `${quiet} delete old.log`);
    const followedResult = await approvedTurn(followed, `${followed} delete old.log`, true);

    expect(environment.model.requestsFor(quiet).map((request) => request.stream)).toEqual([false, false]);
    expect(environment.model.requestsFor(followed).map((request) => request.stream)).toEqual([true, true]);
    expect(quietResult.status).toBe('completed');
    expect(comparable(quietResult, quiet)).toEqual(comparable(followedResult, followed));
  });

  it("streams a conversation's turns, which a chat follows", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(marker, { text: 'hello there' });
    const conversationId = `chat-${marker}`;
    await environment.tollgate.sendMessage(conversationId, { content: `${marker} hi` });
    await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.turnCount === 1 && state.currentTurnId === undefined,
    );
    expect(environment.model.requestsFor(marker).map((request) => request.stream)).toEqual([true]);
  });
});

describe('agentTurn: a small transcript stays in the turn, a large one goes to the content store', () => {
  it('keeps a short turn whole in its transcript, with nothing stored, and the model sees all of it', async () => {
    const marker = uniqueMarker();
    const result = await approvedTurn(marker, `${marker} delete old.log`);

    expect(result.transcript?.head).toBeUndefined();
    expect(result.transcript?.tail.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.transcript?.tail.slice(1)).toEqual(result.messages);
    const second = JSON.stringify(environment.model.requestsFor(marker)[1]?.messages);
    expect(second).toContain(`${marker} delete old.log`);
    expect(second).toContain('Deleting it.');
    expect(second).toContain('{\\"deleted\\":\\"old.log\\"}');
  });

  it('stores the messages past the inline limit, as every step did before, and the model still sees all of it', async () => {
    const marker = uniqueMarker();
    const long = `${marker} delete old.log ${'and read this first. '.repeat(Math.ceil(inlineTranscriptMaxBytes / 20))}`;
    const result = await approvedTurn(marker, long);

    // The first step stored the long prompt and its answer; what came after is small again and stays inline.
    expect(result.transcript?.head).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.transcript?.tail.map((message) => message.role)).toEqual(['tool', 'assistant']);
    expect(result.text).toBe('deleted old.log');
    const [first, second] = environment.model.requestsFor(marker);
    expect(JSON.stringify(first?.messages)).toContain('and read this first.');
    const secondText = JSON.stringify(second?.messages);
    expect(secondText).toContain('and read this first.');
    expect(secondText).toContain('{\\"deleted\\":\\"old.log\\"}');
  });
});
