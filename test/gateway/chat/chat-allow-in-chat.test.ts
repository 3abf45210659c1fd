import type { UIMessage } from 'ai';
import { chatChannel } from '../../../src/gateway/chat';
import {
  createTestEnvironment,
  uniqueMarker,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { startGateway, testTokenGrants, type RunningGateway } from '../gateway-fixture';
import { NodeChat } from './chat-fixture';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools, taskQueuePrefix: 'chat-allow' });
  // A team chat: every member's chat id names one shared conversation, so one member may decide another's calls.
  gateway = await startGateway(environment.tollgate, {
    extensions: [
      chatChannel({
        tokens: testTokenGrants(),
        timing: { pollIntervalMs: 100 },
        conversationIdOf: (chatId) => `team:${chatId}`,
      }),
    ],
  });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
});

/** ana asks in the team chat; the model deletes each path, one step each. Resolves at the first approval. */
async function anaAsks(paths: string[]) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    ...paths.map((path) => ({ toolCalls: [{ name: 'deleteFile', arguments: { path } }] })),
    { text: 'All deleted.' },
  );
  const chat = new NodeChat(gateway, { id: `allow-${marker.slice(6, 14)}` });
  await chat.sendMessage({ text: `${marker} delete ${paths.join(' and ')}` });
  const turnId = chat.latestMessage()!.id;
  await waitForPending(environment.tollgate.turn(turnId), 1);
  return { chat, turnId };
}

/** The chat's last message with its waiting approval answered, "Allow in this chat" marked. */
function allowInChat(chat: NodeChat): UIMessage[] {
  const message = structuredClone(chat.latestMessage() as UIMessage);
  const part = message.parts.find((candidate) => 'approval' in candidate) as Record<string, unknown>;
  part.state = 'approval-responded';
  part.approval = { id: (part.approval as { id: string }).id, approved: true };
  part.callProviderMetadata = { tollgate: { allowInChat: true } };
  return [...chat.messages.slice(0, -1), message];
}

describe('"Allow in this chat"', () => {
  it('approves and grants calls of the tool in this conversation: the next one runs without asking', async () => {
    const { chat, turnId } = await anaAsks(['team/a.txt', 'team/b.txt']);
    // Bob's page, streaming ana's turn, offers him the button: his approval carries no mayAllow: false.
    const resumed = await gateway.call('GET', `/api/chat/${chat.id}/stream`, { as: 'bob' });
    expect(resumed.text).toContain('"approvalDescriptor"');
    expect(resumed.text).not.toContain('mayAllow');
    const response = await gateway.call('POST', '/api/chat', {
      as: 'bob',
      body: { id: chat.id, messages: allowInChat(chat), trigger: 'submit-message' },
    });
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('"type":"error"');
    const result = await environment.tollgate.turn(turnId).result();
    expect(result.audit).toEqual([
      expect.objectContaining({ decision: 'approved', approver: 'bob' }),
      expect.objectContaining({
        decision: 'approved',
        via: 'grant',
        approver: 'bob',
        grant: { grantId: expect.stringMatching(/^grant-/), grantedBy: 'bob' },
      }),
    ]);
    expect(
      runs.filter((run) => ['team/a.txt', 'team/b.txt'].includes(String((run.input as { path?: string }).path))),
    ).toHaveLength(2);
    const { body } = await gateway.call('GET', '/v1/grants', { as: 'bob' });
    const grant = (body.grants as Array<Record<string, unknown>>).find(
      (entry) => entry.grantId === result.audit[1]!.grant!.grantId,
    );
    expect(grant).toMatchObject({
      tools: ['deleteFile'],
      scope: { type: 'conversation', conversationId: `team:${chat.id}` },
      grantedBy: 'bob',
      used: 1,
    });
    expect(Date.parse(grant!.expiresAt as string) - Date.parse(grant!.grantedAt as string)).toBe(86_400_000);
    expect(gateway.audit.list()).toContainEqual(
      expect.objectContaining({
        channel: 'chat',
        approver: 'bob',
        grant: expect.objectContaining({ action: 'grant' }),
      }),
    );
    await gateway.call('DELETE', `/v1/grants/${grant!.grantId as string}`, { as: 'bob' });
  });

  it('refuses it for the person whose request it is, says why in the chat, and leaves the call waiting', async () => {
    const { chat, turnId } = await anaAsks(['team/mine.txt']);
    // Ana's own stream tells her page not to offer the button, and why; a page that sends it anyway is refused.
    const asked = chat.latestMessage()!.parts.find((part) => 'approval' in part) as {
      approval: { descriptor?: unknown };
    };
    expect(asked.approval.descriptor).toMatchObject({
      mayAllow: false,
      allowNote: 'Only a teammate can allow your own requests.',
    });
    const response = await gateway.call('POST', '/api/chat', {
      as: 'ana',
      body: { id: chat.id, messages: allowInChat(chat), trigger: 'submit-message' },
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain('"type":"error"');
    expect(response.text).toContain(
      'Not allowed in this chat: \\"ana\\" may not grant for their own requests; someone else must. The call still waits for a decision.',
    );
    expect(await waitForPending(environment.tollgate.turn(turnId), 1)).toHaveLength(1);
    expect(runs.filter((run) => (run.input as { path?: string }).path === 'team/mine.txt')).toHaveLength(0);
  });
});
