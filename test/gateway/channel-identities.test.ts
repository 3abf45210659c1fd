import { chatChannel } from '../../src/gateway/chat';
import { emailExtension } from '../../src/gateway/email';
import { slackExtension } from '../../src/gateway/slack';
import { PersonDirectory } from '../../src/identity';
import type { AgentTurnInput } from '../../src/protocol';
import { pendingToolApprovalsQuery } from '../../src/workflows/definitions';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../support/test-environment';
import { createTestTools } from '../support/test-tools';
import { decisionLink, openLink, submitForm, testLinkSecret } from './email/email-link-visits';
import { NodeChat } from './chat/chat-fixture';
import { expectProblem, startGateway, testTokenGrants, type RunningGateway } from './gateway-fixture';
import { clickPayload, formBodyOf, postToSlack, testSigningSecret } from './slack/slack-clicks';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let gateway: RunningGateway;

// One person, three channels: ana's token, her Slack user in workspace T1, her address.
const people = PersonDirectory.fromList([
  { id: 'ana', slack: ['T1/U0ANA'], email: ['ana@example.com'] },
  { id: 'bob', slack: ['U0BOB'], email: ['bob@example.com'] },
  { id: 'eve', slack: ['U0EVE'] },
  { id: 'carol', slack: ['U0CAR'] },
  { id: 'dan', slack: ['T1/U0DAN'], email: ['dan@example.com'] },
]);

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
  gateway = await startGateway(environment.tollgate, {
    people,
    rateLimit: { max: 10_000, decisionMax: 6 },
    extensions: [
      slackExtension({
        signingSecrets: [testSigningSecret],
        teamIds: ['T1'],
        appIds: ['A1'],
        deliveryRetry: { attempts: 3, initialDelayMs: 100 },
      }),
      emailExtension({ secrets: [testLinkSecret] }),
    ],
  });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
});

async function waitingTurn(as: 'ana' | 'eve', approvalRules: AgentTurnInput['approvalRules']) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'notes.txt' } }] },
    { text: 'done' },
  );
  const started = await gateway.call('POST', '/v1/turns', {
    as,
    body: { messages: [{ role: 'user', content: `${marker} tidy up` }], approvalRules },
  });
  const workflowId = started.body.workflowId as string;
  const handle = environment.tollgate.turn(workflowId);
  const [approval] = await waitForPending(handle, 1);
  const toolRuns = () => runs.filter((run) => run.toolCallId === `${marker}-1`);
  return { workflowId, handle, approvalId: approval!.approvalId, toolRuns };
}

function slackClick(
  approvalId: string,
  user: string,
  change: (payload: Record<string, unknown>) => void = () => undefined,
) {
  const payload = clickPayload(approvalId, { user });
  change(payload);
  return postToSlack(gateway, formBodyOf(payload));
}

const attemptsOf = (approvalId: string, count: number) =>
  waitFor(
    async () => gateway.audit.list({ approvalId }),
    (attempts) => attempts.length >= count,
  );

describe('channel identities resolve to people', () => {
  it('refuses self-approval through Slack and email when the requester started the turn with a token', async () => {
    const turn = await waitingTurn('ana', { allowSelfApproval: false });
    expect((await slackClick(turn.approvalId, 'U0ANA')).status).toBe(200);
    const byEmail = await submitForm(decisionLink(gateway.url, turn, 'approve', { approver: 'email:ana@example.com' }));
    expect(byEmail.status).toBe(403);
    const attempts = await attemptsOf(turn.approvalId, 2);
    expect(attempts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ approver: 'ana', identity: 'slack:T1/U0ANA', outcome: 'refused' }),
        expect.objectContaining({ approver: 'ana', identity: 'email:ana@example.com', outcome: 'refused' }),
      ]),
    );
    expect(turn.toolRuns()).toHaveLength(0);
    const byBob = await submitForm(decisionLink(gateway.url, turn, 'approve', { approver: 'email:bob@example.com' }));
    expect(byBob.status).toBe(200);
    expect((await turn.handle.result()).audit[0]).toMatchObject({ decision: 'approved', approver: 'bob' });
  });

  it("leaves a requester's email link and its sibling usable after a refused self-approval; a decision that counted uses them up", async () => {
    const turn = await waitingTurn('ana', { allowSelfApproval: false });
    const approve = decisionLink(gateway.url, turn, 'approve', { approver: 'email:ana@example.com' });
    const deny = decisionLink(gateway.url, turn, 'deny', { approver: 'email:ana@example.com' });
    expect((await submitForm(approve)).status).toBe(403);
    const reopened = await openLink(approve);
    expect(reopened.status).toBe(200);
    expect(reopened.text).not.toContain('already been used');
    // Denying her own call needs no rights: the Deny link of the same mail still decides.
    const denied = await submitForm(deny);
    expect(denied.status).toBe(200);
    expect((await turn.handle.result()).audit[0]).toMatchObject({ decision: 'denied', approver: 'ana' });
    for (const link of [deny, approve]) {
      const again = await openLink(link);
      expect(again.status).toBe(410);
      expect(again.text).toContain('already been used');
    }
    expect(turn.toolRuns()).toHaveLength(0);
  });

  it('counts one person once towards a quorum, whichever channels they use', async () => {
    const turn = await waitingTurn('eve', { quorum: 2 });
    const rest = await gateway.call('POST', `/v1/approvals/${turn.approvalId}/decision`, {
      as: 'bob',
      body: { approved: true },
    });
    expect(rest.body).toMatchObject({ decision: 'awaiting-quorum' });
    expect((await slackClick(turn.approvalId, 'U0BOB')).status).toBe(200);
    await attemptsOf(turn.approvalId, 2);
    expect(turn.toolRuns()).toHaveLength(0);
    const byAna = await submitForm(decisionLink(gateway.url, turn, 'approve', { approver: 'email:ana@example.com' }));
    expect(byAna.status).toBe(200);
    await turn.handle.result();
    expect(turn.toolRuns()).toHaveLength(1);
  });

  it('audits a second vote by the same person through another channel as a repeat, not a new vote', async () => {
    const turn = await waitingTurn('eve', { quorum: 2 });
    const byEmail = await submitForm(decisionLink(gateway.url, turn, 'approve', { approver: 'email:dan@example.com' }));
    expect(byEmail.status).toBe(200);
    expect((await slackClick(turn.approvalId, 'U0DAN')).status).toBe(200);
    const attempts = await attemptsOf(turn.approvalId, 2);
    expect(attempts.map((attempt) => [attempt.approver, attempt.identity, attempt.outcome])).toEqual([
      ['dan', 'email:dan@example.com', 'recorded'],
      ['dan', 'slack:T1/U0DAN', 'repeat'],
    ]);
    expect(turn.toolRuns()).toHaveLength(0);
    expect((await turn.handle.query(pendingToolApprovalsQuery))[0]?.votes).toHaveLength(1);
  });

  it('refuses a Slack user and an address the identity map does not name, and decides nothing', async () => {
    const turn = await waitingTurn('eve', {});
    expect((await slackClick(turn.approvalId, 'U0NOBODY')).status).toBe(200);
    const byStranger = await submitForm(
      decisionLink(gateway.url, turn, 'approve', { approver: 'email:stranger@example.com' }),
    );
    expect(byStranger.status).toBe(403);
    expect(await attemptsOf(turn.approvalId, 2)).toEqual([
      expect.objectContaining({ identity: 'slack:T1/U0NOBODY', outcome: 'refused' }),
      expect.objectContaining({ approver: 'email:stranger@example.com', outcome: 'refused' }),
    ]);
    expect(await environment.tollgate.pending({ workflowId: turn.workflowId })).toHaveLength(1);
  });

  it('refuses clicks from another workspace or another app with 403', async () => {
    const turn = await waitingTurn('eve', {});
    const foreignTeam = await slackClick(turn.approvalId, 'U0BOB', (payload) => {
      payload.team = { id: 'T9', domain: 'elsewhere' };
    });
    expectProblem(foreignTeam, 403, 'forbidden');
    const foreignApp = await slackClick(turn.approvalId, 'U0BOB', (payload) => {
      payload.api_app_id = 'A9';
    });
    expectProblem(foreignApp, 403, 'forbidden');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await environment.tollgate.pending({ workflowId: turn.workflowId })).toHaveLength(1);
  });

  it('holds Slack clicks to the per-person decision limit', async () => {
    const turn = await waitingTurn('eve', {});
    for (let index = 0; index < 7; index++) expect((await slackClick(turn.approvalId, 'U0CAR')).status).toBe(200);
    const attempts = await attemptsOf(turn.approvalId, 7);
    expect(attempts.filter((attempt) => attempt.refusal?.code === 'rate-limited')).toEqual([
      expect.objectContaining({ approver: 'carol', outcome: 'refused' }),
    ]);
  });
  it("resolves the channel names in a chat conversation's approver list to people, as for a turn started over REST", async () => {
    // The operator's chat names its approver by her Slack user; the turn must name her as the person she is.
    const chatGateway = await startGateway(environment.tollgate, {
      people,
      extensions: [
        chatChannel({
          tokens: testTokenGrants(),
          timing: { pollIntervalMs: 100 },
          conversation: { turn: { approvalRules: { approvers: ['slack:U0ANA'] } } },
        }),
      ],
    });
    try {
      const marker = uniqueMarker();
      environment.model.scriptFor(
        marker,
        { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'chat-notes.txt' } }] },
        { text: 'done' },
      );
      const chat = new NodeChat(chatGateway, { as: 'bob', id: `names-${marker.slice(6, 14)}` });
      await chat.sendMessage({ text: `${marker} tidy up` });
      const handle = environment.tollgate.turn(chat.latestMessage()!.id);
      const [approval] = await waitForPending(handle, 1);
      expect(approval!.approvers).toEqual(['ana']);
      const byEve = await chatGateway.call('POST', `/v1/approvals/${approval!.approvalId}/decision`, {
        as: 'eve',
        body: { approved: true },
      });
      expectProblem(byEve, 403, 'forbidden');
      const byAna = await chatGateway.call('POST', `/v1/approvals/${approval!.approvalId}/decision`, {
        as: 'ana',
        body: { approved: true },
      });
      expect(byAna.status).toBe(200);
      expect((await handle.result()).audit[0]).toMatchObject({ decision: 'approved', approver: 'ana' });
      expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    } finally {
      await chatGateway.close();
    }
  });
});
