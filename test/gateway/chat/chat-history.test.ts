import { lastAssistantMessageIsCompleteWithApprovalResponses, safeValidateUIMessages, type UIMessage } from 'ai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TollgateClient } from '../../../src/client';
import { createChatHandler } from '../../../src/gateway/chat';
import { FileContentStore } from '../../../src/store';
import { ApprovalDecisions, DecisionAudit } from '../../../src/gateway';
import { uniqueMarker } from '../../support/test-environment';
import { longDefinitionOf } from '../../support/test-tools';
import { testTokens } from '../gateway-fixture';
import { eventually, NodeChat, startChatStack, type ChatStack } from './chat-fixture';

type ToolPartSeen = { type: string; toolCallId: string; state: string; input?: unknown; output?: unknown } & {
  approval?: { id: string; approved?: boolean; reason?: string };
};

function toolPartsOf(message: UIMessage | undefined): ToolPartSeen[] {
  return (message?.parts ?? []).filter((part) => 'toolCallId' in part) as unknown as ToolPartSeen[];
}

function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

describe('GET /api/chat/:id/messages', () => {
  let stack: ChatStack;

  beforeAll(async () => {
    stack = await startChatStack();
  });

  afterAll(async () => {
    await stack.close();
  });

  afterEach(() => {
    expect(stack.model.failures).toEqual([]);
  });

  it('gives a reloaded page every earlier turn, and a resume after it replaces the running turn instead of adding one', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { text: 'Deleting a.txt.', toolCalls: [{ name: 'deleteFile', arguments: { path: 'history-a.txt' } }] },
      { text: 'Deleted a.txt.' },
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'history-b.txt' } }] },
      { text: 'Kept b.txt.' },
      { text: 'And c.txt?', toolCalls: [{ name: 'deleteFile', arguments: { path: 'history-c.txt' } }] },
      { text: 'Deleted c.txt.' },
    );
    const chat = new NodeChat(stack.gateway, {
      id: `history-${marker.slice(6, 14)}`,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    const decideLast = async (decision: { approved: boolean; reason?: string }) => {
      const [asked] = chat.toolParts() as unknown as ToolPartSeen[];
      await chat.addToolApprovalResponse({ id: asked?.approval?.id as string, ...decision });
    };

    await chat.sendMessage({ text: `${marker} delete history-a.txt` });
    await decideLast({ approved: true });
    await eventually(
      () => chat.status === 'ready' && chat.text() === 'Deleting a.txt.Deleted a.txt.',
      (done) => done,
    );
    await chat.sendMessage({ text: 'now delete history-b.txt' });
    await decideLast({ approved: false, reason: 'b stays' });
    await eventually(
      () => chat.status === 'ready' && chat.text() === 'Kept b.txt.',
      (done) => done,
    );
    // A third turn waits for its approval while the page reloads.
    await chat.sendMessage({ text: 'and history-c.txt' });
    expect(chat.toolParts()[0]).toMatchObject({ state: 'approval-requested' });
    const streamed = structuredClone(chat.messages);

    const response = await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`);
    expect(response.status).toBe(200);
    const history = response.body as UIMessage[];
    expect((await safeValidateUIMessages({ messages: history })).success).toBe(true);
    expect(history.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    // The ids the stream used: the assistant messages are the turns, in order.
    expect(history.filter((message) => message.role === 'assistant').map((message) => message.id)).toEqual(
      streamed.filter((message) => message.role === 'assistant').map((message) => message.id),
    );
    expect(history.map((message) => message.role === 'user' && textOf(message)).filter(Boolean)).toEqual([
      `${marker} delete history-a.txt`,
      'now delete history-b.txt',
      'and history-c.txt',
    ]);

    expect(textOf(history[1])).toBe('Deleting a.txt.Deleted a.txt.');
    const [approved] = toolPartsOf(history[1]);
    expect(approved).toMatchObject({
      type: 'tool-deleteFile',
      state: 'output-available',
      input: { path: 'history-a.txt' },
      output: { deleted: 'history-a.txt' },
      approval: { approved: true },
    });
    expect(approved?.toolCallId).toBe(toolPartsOf(streamed[1])[0]?.toolCallId);
    expect(approved?.approval?.id).toBe(toolPartsOf(streamed[1])[0]?.approval?.id);
    expect(toolPartsOf(history[3])[0]).toMatchObject({
      state: 'output-denied',
      input: { path: 'history-b.txt' },
      approval: { approved: false, reason: 'b stays' },
    });
    expect(textOf(history[3])).toBe('Kept b.txt.');
    const [waiting] = toolPartsOf(history[5]);
    expect(waiting).toMatchObject({ state: 'approval-requested', input: { path: 'history-c.txt' } });
    expect(waiting?.approval?.id).toBe(toolPartsOf(streamed[5])[0]?.approval?.id);
    expect(textOf(history[5])).toBe('And c.txt?');
    // Stable: a second look gives the same messages.
    expect((await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`)).body).toEqual(history);

    // The reloaded page: the history, then useChat's resume, then the decision.
    const reloaded = new NodeChat(stack.gateway, {
      id: chat.id,
      messages: history,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await reloaded.resumeStream();
    expect(reloaded.messages.map((message) => message.id)).toEqual(history.map((message) => message.id));
    expect(reloaded.toolParts()).toEqual([expect.objectContaining({ state: 'approval-requested' })]);
    expect(reloaded.text()).toBe('And c.txt?');

    await reloaded.addToolApprovalResponse({ id: waiting?.approval?.id as string, approved: true });
    await eventually(
      () => reloaded.status === 'ready' && reloaded.text() === 'And c.txt?Deleted c.txt.',
      (done) => done,
    );
    expect(reloaded.messages.map((message) => message.id)).toEqual(history.map((message) => message.id));
    expect(reloaded.toolParts()[0]).toMatchObject({ state: 'output-available', output: { deleted: 'history-c.txt' } });
    expect(stack.runs.filter((run) => String((run.input as { path?: string }).path).startsWith('history-'))).toEqual([
      expect.objectContaining({ input: { path: 'history-a.txt' } }),
      expect.objectContaining({ input: { path: 'history-c.txt' } }),
    ]);

    // Once the turn has finished, the history holds it from the transcript, under the same id.
    const after = (await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`)).body as UIMessage[];
    expect(after.map((message) => message.id)).toEqual(history.map((message) => message.id));
    expect(toolPartsOf(after[5])[0]).toMatchObject({ state: 'output-available', approval: { approved: true } });
    expect((await stack.gateway.call('GET', `/api/chat/${chat.id}/stream`)).status).toBe(204);
  });

  it('shows a large tool output in full, while it streams and after a reload, though history keeps a preview', async () => {
    const marker = uniqueMarker();
    const query = `long:${marker}`;
    stack.model.scriptFor(marker, { toolCalls: [{ name: 'lookup', arguments: { query } }] }, { text: 'Looked it up.' });
    const chat = new NodeChat(stack.gateway, { id: `long-${marker.slice(6, 14)}` });

    await chat.sendMessage({ text: `${marker} look it up` });
    await eventually(
      () => chat.status === 'ready' && chat.text() === 'Looked it up.',
      (done) => done,
    );
    const full = longDefinitionOf(query);
    expect(chat.toolParts()[0]).toMatchObject({ state: 'output-available', output: full });

    const response = await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`);
    expect(response.status).toBe(200);
    const [ran] = toolPartsOf((response.body as UIMessage[]).at(-1));
    expect(ran).toMatchObject({ state: 'output-available', output: full });
    // The turn itself keeps a preview and the reference, not the 7 KiB.
    const turn = await stack.tollgate.turn(`chat:ana:${chat.id}/turn-1`).result();
    const stored = turn.messages.flatMap((message) => (message.role === 'tool' ? message.content : []));
    expect(stored[0]).toMatchObject({ type: 'tool-result', output: { type: 'text' } });
    expect(JSON.stringify(stored[0])).not.toContain(full);
    expect(ran?.output).toEqual(full);
  });

  it("answers 404 for an unknown chat, and for someone else's", async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(marker, { text: 'Only for ana.' });
    const chat = new NodeChat(stack.gateway, { id: `mine-${marker.slice(6, 14)}` });
    await chat.sendMessage({ text: `${marker} hello` });

    const unknown = await stack.gateway.call('GET', `/api/chat/nobody-${marker.slice(6, 14)}/messages`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    expect((await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`, { as: 'bob' })).status).toBe(404);
    expect((await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`, { token: null })).status).toBe(401);
    const own = await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`);
    expect((own.body as UIMessage[]).map(textOf)).toEqual([`${marker} hello`, 'Only for ana.']);
  });

  it("shows the conversation's recent history when the gateway's store does not have its transcript", async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(marker, { text: 'First answer.' }, { text: 'Second answer.' });
    const chat = new NodeChat(stack.gateway, { id: `nostore-${marker.slice(6, 14)}` });
    await chat.sendMessage({ text: `${marker} one` });
    await eventually(
      () => chat.status === 'ready' && chat.text() === 'First answer.',
      (done) => done,
    );
    await chat.sendMessage({ text: 'two' });
    await eventually(
      () => chat.status === 'ready' && chat.text() === 'Second answer.',
      (done) => done,
    );
    // A gateway on another store: the conversation's transcript is not there.
    const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-other-store-'));
    try {
      const elsewhere = new TollgateClient(
        stack.tollgate.client,
        stack.taskQueue,
        undefined,
        new FileContentStore(folder),
      );
      expect((await elsewhere.conversationState(`chat:ana:${chat.id}`)).transcript).toBeDefined();
      const handler = createChatHandler({
        tollgate: elsewhere,
        decisions: new ApprovalDecisions(elsewhere, new DecisionAudit()),
        authenticate: (authorization) => (authorization === `Bearer ${testTokens.ana}` ? { person: 'ana' } : undefined),
      });
      const response = await handler.fetch(
        new Request(`http://app.example/api/chat/${chat.id}/messages`, {
          headers: { authorization: `Bearer ${testTokens.ana}` },
        }),
      );
      expect(response.status).toBe(200);
      const messages = (await response.json()) as UIMessage[];
      expect(messages.map(textOf)).toEqual([`${marker} one`, 'First answer.', 'two', 'Second answer.']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('is served the same by the exported Fetch handler', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(marker, { text: 'Through fetch.' });
    const chat = new NodeChat(stack.gateway, { id: `fetch-${marker.slice(6, 14)}` });
    await chat.sendMessage({ text: `${marker} hi` });
    const handler = createChatHandler({
      tollgate: stack.tollgate,
      decisions: new ApprovalDecisions(stack.tollgate, new DecisionAudit()),
      authenticate: (authorization) => (authorization === `Bearer ${testTokens.ana}` ? { person: 'ana' } : undefined),
    });

    const response = await handler.fetch(
      new Request(`http://app.example/api/chat/${chat.id}/messages`, {
        headers: { authorization: `Bearer ${testTokens.ana}` },
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual((await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`)).body);
  });
});
