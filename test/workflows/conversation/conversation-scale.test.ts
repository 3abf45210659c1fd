import { temporal } from '@temporalio/proto';
import type { ModelMessage } from '../../../src/protocol';
import { appendTranscript, contentStoreFromEnvironment } from '../../../src/store';
import { createTestEnvironment, uniqueMarker, waitFor, type TestEnvironment } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const { tools } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => environment?.close());

/** `exchanges` rounds of: a question, a tool call, its 2 KiB output, an answer. */
function longHistory(marker: string, exchanges: number): ModelMessage[] {
  return Array.from({ length: exchanges }, (_, index): ModelMessage[] => [
    { role: 'user', content: `${marker} question ${index}` },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `${marker}-${index}`, toolName: 'lookup', input: { query: `q${index}` } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `${marker}-${index}`,
          toolName: 'lookup',
          output: { type: 'text', value: `answer ${index} ${'.'.repeat(2048)}` },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: `answered ${index}` }] },
  ]).flat();
}

describe('a long conversation', () => {
  it('gives a turn 500 messages with tool outputs by reference, and the model sees them all', async () => {
    const marker = uniqueMarker();
    const conversationId = `chat-${marker}`;
    const history = longHistory(marker, 125);
    const head = await appendTranscript(contentStoreFromEnvironment(), undefined, history);
    environment.model.scriptFor(marker, { text: 'here is the summary' });

    const { turnId } = await environment.tollgate.sendMessage(
      conversationId,
      { content: `${marker} summarise everything` },
      { transcript: { head: head as string, tail: [] } },
    );
    const done = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.turnCount === 1 && state.currentTurnId === undefined,
    );

    const request = environment.model.requestsFor(marker).at(-1);
    expect(request?.messages).toHaveLength(501);
    expect(JSON.stringify(request?.messages)).toContain('answer 124');
    // The turn's input names the history; it does not carry 1 MB of it.
    const turnHistory = await environment.tollgate.turn(turnId).fetchHistory();
    const started = turnHistory.events?.[0] as temporal.api.history.v1.IHistoryEvent;
    expect(temporal.api.history.v1.HistoryEvent.encode(started).finish().length).toBeLessThan(4 * 1024);
    // The conversation shows its recent messages; the whole of it is one reference away.
    expect(done.history.length).toBeLessThanOrEqual(100);
    expect(done.history.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'here is the summary' }],
    });
    const whole = await environment.tollgate.readTranscript(done.transcript!);
    expect(whole).toHaveLength(502);
  });
});
