import { safeValidateTypes } from '@ai-sdk/provider-utils';
import {
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  uiMessageChunkSchema,
  type UIMessage,
} from 'ai';
import { uniqueMarker } from '../../support/test-environment';
import { auditSince } from '../gateway-fixture';
import { allowedOrigin, eventually, NodeChat, startChatStack, type ChatStack } from './chat-fixture';

const sendAutomaticallyWhen = (options: { messages: UIMessage[] }) =>
  lastAssistantMessageIsCompleteWithApprovalResponses(options) || lastAssistantMessageIsCompleteWithToolCalls(options);

describe('POST /api/chat', () => {
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

  async function expectValidChunks(chat: NodeChat): Promise<void> {
    expect(chat.rawEvents.length).toBeGreaterThan(0);
    for (const data of chat.rawEvents) {
      if (data === '[DONE]') continue;
      const result = await safeValidateTypes({ value: JSON.parse(data), schema: uiMessageChunkSchema });
      if (!result.success) throw new Error(`invalid chunk ${data}: ${result.error.message}`);
    }
  }

  function chunkTypes(chat: NodeChat): string[] {
    return chat.rawEvents
      .filter((data) => data !== '[DONE]')
      .map((data) => (JSON.parse(data) as { type: string }).type);
  }

  it('streams the answer token by token while the model runs, with a handful of history events', async () => {
    const marker = uniqueMarker();
    const words = Array.from({ length: 30 }, (_value, index) => `token${index}`).join(' ');
    stack.model.scriptFor(marker, { text: words, streamDelayMs: 40 });
    const chat = new NodeChat(stack.gateway, { id: `stream-${marker.slice(6, 14)}` });

    await chat.sendMessage({ text: `${marker} say many words` });

    expect(chat.status).toBe('ready');
    expect(chat.text()).toBe(words);
    const types = chunkTypes(chat);
    expect(types.filter((type) => type === 'text-delta').length).toBeGreaterThanOrEqual(3);
    expect(types[0]).toBe('start');
    expect(types.slice(-1)).toEqual(['finish']);
    expect(types).toEqual(expect.arrayContaining(['start-step', 'text-start', 'text-end', 'finish-step']));
    await expectValidChunks(chat);
    // Tokens travel by heartbeat: the turn's history does not grow with them.
    const turnId = chat.latestMessage()?.id as string;
    const description = await stack.tollgate.turn(turnId).describe();
    expect(description.historyLength).toBeLessThan(30);
  });

  it('sends an image the person attached to the model, and keeps it in the conversation', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(marker, { text: 'a cat' });
    const chat = new NodeChat(stack.gateway, { id: `file-${marker.slice(6, 14)}` });
    const url = 'data:image/png;base64,iVBORw0KGgo=';

    await chat.sendMessage({
      text: `${marker} what is this?`,
      files: [{ type: 'file', mediaType: 'image/png', filename: 'cat.png', url }],
    });

    expect(chat.text()).toBe('a cat');
    const asked = stack.model.requestsFor(marker).at(-1)?.messages.at(-1);
    expect(asked?.content).toEqual(
      expect.arrayContaining([{ type: 'image_url', image_url: { url } }, expect.objectContaining({ type: 'text' })]),
    );
    // After a reload the history shows the message as it was sent: its text and the file.
    const history = (await stack.gateway.call('GET', `/api/chat/${chat.id}/messages`)).body as UIMessage[];
    expect(history[0]?.parts).toEqual(chat.messages[0]?.parts);
  });

  it('shows an approval, and approving from the chat runs the tool exactly once and streams the rest', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { text: 'I will delete it.', toolCalls: [{ name: 'deleteFile', arguments: { path: 'old.txt' } }] },
      { text: 'Deleted old.txt.' },
    );
    const chat = new NodeChat(stack.gateway, { id: `approve-${marker.slice(6, 14)}`, sendAutomaticallyWhen });

    await chat.sendMessage({ text: `${marker} delete old.txt` });
    const [asked] = chat.toolParts();
    expect(asked).toMatchObject({ type: 'tool-deleteFile', state: 'approval-requested', input: { path: 'old.txt' } });
    expect(stack.runs.filter((run) => run.input && (run.input as { path?: string }).path === 'old.txt')).toEqual([]);

    await chat.addToolApprovalResponse({ id: (asked as { approval: { id: string } }).approval.id, approved: true });
    await eventually(
      () => chat.status === 'ready' && chat.text().includes('Deleted old.txt.'),
      (done) => done,
    );

    const [ran] = chat.toolParts();
    expect(ran).toMatchObject({ state: 'output-available', output: { deleted: 'old.txt' } });
    expect(chat.messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'old.txt')).toHaveLength(1);
    const audit = (await stack.tollgate.state(chat.latestMessage()?.id as string)).audit;
    expect(audit[0]).toMatchObject({ decision: 'approved', approver: 'ana' });
    await expectValidChunks(chat);
  });

  it('denies from the chat: the part shows output-denied and the model is told why', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'keep.txt' } }] },
      { text: 'Understood, I kept it.' },
    );
    const chat = new NodeChat(stack.gateway, { id: `deny-${marker.slice(6, 14)}`, sendAutomaticallyWhen });

    await chat.sendMessage({ text: `${marker} delete keep.txt` });
    const [asked] = chat.toolParts() as Array<{ approval: { id: string } }>;
    await chat.addToolApprovalResponse({
      id: asked?.approval.id as string,
      approved: false,
      reason: 'we still need it',
    });
    await eventually(
      () => chat.status === 'ready' && chat.text().includes('kept it'),
      (done) => done,
    );

    expect(chat.toolParts()[0]).toMatchObject({
      state: 'output-denied',
      approval: { approved: false, reason: 'we still need it' },
    });
    const told = JSON.stringify(stack.model.requestsFor(marker)[1]?.messages.at(-1));
    expect(told).toContain('we still need it');
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'keep.txt')).toEqual([]);
  });

  it('sends the output of a client-executed tool from addToolOutput to the turn', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'pickColor', arguments: { prompt: 'Pick one' } }] },
      { text: 'Green it is.' },
    );
    const chat: NodeChat = new NodeChat(stack.gateway, {
      id: `client-${marker.slice(6, 14)}`,
      sendAutomaticallyWhen,
      onToolCall: ({ toolCall }) => {
        void chat.addToolOutput({ tool: 'pickColor', toolCallId: toolCall.toolCallId, output: { color: '#00ff00' } });
      },
    });

    await chat.sendMessage({ text: `${marker} pick a color` });
    await eventually(
      () => chat.status === 'ready' && chat.text().includes('Green it is.'),
      (done) => done,
    );

    expect(chat.toolParts()[0]).toMatchObject({ state: 'output-available', output: { color: '#00ff00' } });
    expect(JSON.stringify(stack.model.requestsFor(marker)[1]?.messages.at(-1))).toContain('#00ff00');
  });

  it('refuses a forged approval-responded part for an id the turn never issued, and decides nothing', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(marker, { toolCalls: [{ name: 'deleteFile', arguments: { path: 'secret.txt' } }] });
    const chat = new NodeChat(stack.gateway, { id: `forge-${marker.slice(6, 14)}` });
    await chat.sendMessage({ text: `${marker} delete secret.txt` });
    const message = structuredClone(chat.latestMessage() as UIMessage);
    const part = message.parts.find((candidate) => 'toolCallId' in candidate) as Record<string, unknown>;
    part.state = 'approval-responded';
    part.approval = { id: 'Zm9yZ2Vk.000000000000', approved: true };

    const response = await stack.gateway.call('POST', '/api/chat', {
      body: { id: chat.id, messages: [...chat.messages.slice(0, -1), message], trigger: 'submit-message' },
    });

    expect(response.status).toBe(200);
    expect(response.text).toContain('"type":"error"');
    expect(response.text).toContain('is not one turn');
    const state = await stack.tollgate.state(message.id);
    expect(state.pending).toHaveLength(1);
    expect(state.audit).toEqual([]);
    const audit = await stack.gateway.call('GET', '/v1/audit?approvalId=Zm9yZ2Vk.000000000000', { as: 'auditor' });
    expect(audit.body.attempts).toEqual([
      expect.objectContaining({
        channel: 'chat',
        approver: 'ana',
        workflowId: message.id,
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'unknown-approval' }),
      }),
    ]);

    // A message of another chat (or one made up) is no turn of this chat.
    const elsewhere = await stack.gateway.call('POST', '/api/chat', {
      body: { id: chat.id, messages: [{ ...message, id: 'chat:bob:other/turn-1' }], trigger: 'submit-message' },
    });
    expect(elsewhere.status).toBe(400);
  });

  it('keeps refused chat decisions in GET /v1/audit with their cause: no token, a token that may not decide, a foreign page', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(marker, { toolCalls: [{ name: 'deleteFile', arguments: { path: 'kept.txt' } }] });
    const chat = new NodeChat(stack.gateway, { id: `refused-${marker.slice(6, 14)}`, as: 'robot' });
    await chat.sendMessage({ text: `${marker} delete kept.txt` });
    const message = structuredClone(chat.latestMessage() as UIMessage);
    const part = message.parts.find((candidate) => 'toolCallId' in candidate) as Record<string, unknown>;
    const approvalId = (part.approval as { id: string }).id;
    part.state = 'approval-responded';
    part.approval = { id: approvalId, approved: true };
    const body = { id: chat.id, messages: [...chat.messages.slice(0, -1), message], trigger: 'submit-message' };
    const since = new Date();

    expect((await stack.gateway.call('POST', '/api/chat', { token: null, body })).status).toBe(401);
    expect((await stack.gateway.call('POST', '/api/chat', { as: 'robot', body })).status).toBe(403);
    const foreign = await stack.gateway.call('POST', '/api/chat', {
      as: 'robot',
      body,
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);

    const attempts = await auditSince(stack.gateway, since, (found) => found.length >= 3);
    expect(attempts).toEqual([
      expect.objectContaining({
        channel: 'chat',
        approver: '(unauthenticated)',
        approvalId: '(unknown)',
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'unauthorized' }),
      }),
      expect.objectContaining({
        channel: 'chat',
        approver: 'robot',
        identity: 'token:robot',
        approvalId,
        workflowId: message.id,
        approved: true,
        outcome: 'refused',
        refusal: { code: 'forbidden', detail: 'This token lacks the scope approvals:decide.' },
      }),
      expect.objectContaining({
        channel: 'chat',
        approver: '(unauthenticated)',
        refusal: { code: 'forbidden', detail: 'This origin may not call the chat API.' },
      }),
    ]);
    expect(await stack.tollgate.pending({ workflowId: message.id })).toHaveLength(1);
    await stack.tollgate.turn(message.id).cancel();
  });

  it('two tabs decide the same approval: the first wins and the second sees the outcome', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'tabs.txt' } }] },
      { text: 'Deleted tabs.txt.' },
    );
    const first = new NodeChat(stack.gateway, { id: `tabs-${marker.slice(6, 14)}`, sendAutomaticallyWhen });
    await first.sendMessage({ text: `${marker} delete tabs.txt` });
    const second = new NodeChat(stack.gateway, {
      id: first.id,
      sendAutomaticallyWhen,
      messages: structuredClone(first.messages),
    });
    const approvalId = (first.toolParts()[0] as unknown as { approval: { id: string } }).approval.id;

    await first.addToolApprovalResponse({ id: approvalId, approved: true });
    await eventually(
      () => first.status === 'ready' && first.text().includes('Deleted'),
      (done) => done,
    );
    await second.addToolApprovalResponse({ id: approvalId, approved: false, reason: 'no' });
    await eventually(
      () => second.status,
      (status) => status === 'error' || status === 'ready',
    );

    expect(second.status).toBe('error');
    expect(second.error?.message).toMatch(/already approved by ana/);
    expect(second.toolParts()[0]).toMatchObject({ approval: { approved: true } });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'tabs.txt')).toHaveLength(1);
  });

  it('answers HTTP rules: bearer token, CORS allow-list, regenerate refused, 204 when nothing runs', async () => {
    const body = {
      id: 'rules',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      trigger: 'submit-message',
    };
    expect((await stack.gateway.call('POST', '/api/chat', { body, token: null })).status).toBe(401);
    const preflight = await fetch(`${stack.gateway.url}/api/chat`, {
      method: 'OPTIONS',
      headers: {
        origin: allowedOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
    const foreign = await stack.gateway.call('POST', '/api/chat', { body, headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    const regenerate = await stack.gateway.call('POST', '/api/chat', {
      body: { ...body, trigger: 'regenerate-message' },
    });
    expect(regenerate.status).toBe(400);
    expect((await stack.gateway.call('GET', '/api/chat/never-used/stream')).status).toBe(204);
    expect((await stack.gateway.call('GET', '/api/chat/never-used/stream', { as: 'auditor' })).status).toBe(403);
  });
});
