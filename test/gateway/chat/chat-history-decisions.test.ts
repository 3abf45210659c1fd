import type { UIMessage } from 'ai';
import { uniqueMarker } from '../../support/test-environment';
import { eventually, NodeChat, startChatStack, type ChatStack } from './chat-fixture';

describe('GET /api/chat/:id/messages for a finished turn with an approval', () => {
  let stack: ChatStack;

  beforeAll(async () => {
    stack = await startChatStack({ conversation: { turn: { approvalTimeout: '1s' } } });
  });

  afterAll(async () => {
    await stack.close();
  });

  it('keeps the decision as recorded (expired, not just denied) and the approval’s descriptor after the turn ends', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'expire.txt' } }] },
      { text: 'The approval expired; nothing was deleted.' },
    );
    const chat = new NodeChat(stack.gateway, { id: `expire-${marker.slice(6, 14)}` });
    await chat.sendMessage({ text: `${marker} delete expire.txt` });
    // Nobody decides: the approval expires, and the turn ends.
    const state = await eventually(
      () => stack.tollgate.conversationState(`chat:ana:${chat.id}`),
      (current) => current.currentTurnId === undefined && current.turnCount === 1,
      20_000,
    );
    expect(state.turnCount).toBe(1);

    const response = await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`);
    expect(response.status).toBe(200);
    const history = response.body as UIMessage[];
    const tool = history.flatMap((message) => message.parts).find((part) => part.type === 'tool-deleteFile') as {
      state: string;
      approval?: { approved?: boolean; descriptor?: { requestedAt?: string; expiresAt?: string } };
      callProviderMetadata?: { tollgate?: { decision?: string } };
    };
    expect(tool.state).toBe('output-denied');
    expect(tool.callProviderMetadata?.tollgate?.decision).toBe('expired');
    expect(tool.approval?.approved).toBe(false);
    expect(tool.approval?.descriptor?.expiresAt).toEqual(expect.any(String));
    expect(tool.approval?.descriptor?.requestedAt).toEqual(expect.any(String));
  });
});
