import { uniqueMarker } from '../../support/test-environment';
import { expectProblem } from '../gateway-fixture';
import { allowedOrigin, startChatStack, type ChatStack } from './chat-fixture';

function messageBody(chatId: string, parts: unknown[]) {
  return { id: chatId, messages: [{ id: 'u1', role: 'user', parts }], trigger: 'submit-message' };
}

describe('POST /api/chat with an oversized message', () => {
  let stack: ChatStack;

  beforeAll(async () => {
    stack = await startChatStack();
  });

  afterAll(async () => {
    await stack.close();
  });

  it('answers a 3 MiB paste with a 413 naming the limit, and no conversation starts', async () => {
    const chatId = `paste-${uniqueMarker().slice(6, 14)}`;
    const response = await stack.gateway.call('POST', '/api/chat', {
      body: messageBody(chatId, [{ type: 'text', text: 'z'.repeat(3 * 1024 * 1024) }]),
      headers: { origin: allowedOrigin },
    });
    expectProblem(response, 413, 'payload-too-large');
    expect(response.body.detail).toBe(
      'The message has 3,145,728 characters; a chat message may have at most 100,000. Shorten it, or attach the text as a file.',
    );
    expect(response.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
    // No workflow saw it: the chat does not exist, and a first message still starts it.
    expect((await stack.gateway.call('GET', `/api/chat/${chatId}/messages`)).status).toBe(404);
  });

  it('refuses files that would take a message past 1 MiB, below Temporal’s payload limit', async () => {
    const chatId = `file-${uniqueMarker().slice(6, 14)}`;
    const data = Buffer.alloc(1_200_000, 7).toString('base64');
    const response = await stack.gateway.call('POST', '/api/chat', {
      body: messageBody(chatId, [
        { type: 'text', text: 'see the file' },
        { type: 'file', mediaType: 'application/octet-stream', url: `data:application/octet-stream;base64,${data}` },
      ]),
    });
    expectProblem(response, 413, 'payload-too-large');
    expect(response.body.detail).toMatch(/a chat message with its files may be at most 1 MiB \(1,048,576 bytes\)/);
    expect((await stack.gateway.call('GET', `/api/chat/${chatId}/messages`)).status).toBe(404);
  });

  it('names the chat route’s own 4 MiB body limit, not the gateway’s 64 KiB, and a page on an allowed origin can read it', async () => {
    const response = await stack.gateway.call('POST', '/api/chat', {
      body: messageBody('huge', [{ type: 'text', text: 'w'.repeat(5 * 1024 * 1024) }]),
      headers: { origin: allowedOrigin },
    });
    expectProblem(response, 413, 'payload-too-large');
    expect(response.body.detail).toBe(
      "The chat request is larger than the chat's limit of 4 MiB (4,194,304 bytes); a single message may be at most 1 MiB (1,048,576 bytes).",
    );
    expect(response.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
  });
});
