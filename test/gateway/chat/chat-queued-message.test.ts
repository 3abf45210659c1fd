import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { uniqueMarker } from '../../support/test-environment';
import { eventually, NodeChat, startChatStack, type ChatStack } from './chat-fixture';

let stack: ChatStack;

beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack.close();
});

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<T>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a message posted to the chat while an approval waits', () => {
  it('is answered at once with what it waits for, and its real answer follows the decision', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'queued.txt' } }] },
      { text: 'Deleted queued.txt.' },
      { text: 'Now about your second question.' },
    );
    const chatId = `queued-${marker.slice(6, 14)}`;
    const page = new NodeChat(stack.gateway, {
      id: chatId,
      sendAutomaticallyWhen: (options: { messages: UIMessage[] }) =>
        lastAssistantMessageIsCompleteWithApprovalResponses(options),
    });
    await page.sendMessage({ text: `${marker} delete queued.txt` });
    const [asked] = page.toolParts() as Array<{ state: string; approval: { id: string } }>;
    expect(asked?.state).toBe('approval-requested');

    // Another client of the same chat (a script, a plain useChat) sends a message now: its stream ends at once. A
    // stream that waited for the decision would never end (none is sent until after), so the bound is only there to
    // fail with a message before the test's own timeout, however busy the machine.
    const other = new NodeChat(stack.gateway, { id: chatId });
    await within(other.sendMessage({ text: 'and what about the logs?' }), 40_000, 'the queued message’s stream');
    expect(other.status).toBe('ready');
    const notice = other.latestMessage();
    expect(notice?.role).toBe('assistant');
    expect(other.text()).toBe(
      'Your message is queued: the call to deleteFile waits for a decision in the turn before it. ' +
        'It is answered once that is approved or denied; resume this chat to see the answer.',
    );
    expect(notice?.metadata).toEqual({ tollgate: { queued: true, waitsFor: [asked?.approval.id] } });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'queued.txt')).toEqual([]);

    // Once decided, the queued message is answered, under the same message id as the notice.
    await page.addToolApprovalResponse({ id: asked!.approval.id, approved: true });
    await eventually(
      () => page.status === 'ready' && page.text().includes('Deleted queued.txt.'),
      (done) => done,
    );
    const history = await eventually(
      async () => (await stack.gateway.call('GET', `/api/chat/${chatId}/messages`)).body as UIMessage[],
      (messages) => JSON.stringify(messages.at(-1)).includes('Now about your second question.'),
    );
    expect(history.at(-1)?.id).toBe(notice?.id);
    expect(history.at(-2)).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'and what about the logs?' }] });
  });
});
