import { WebClient } from '@slack/web-api';
import { signSlackRequest, slackExtension } from '../../../src/gateway/slack';
import { SlackNotifier } from '../../../src/notifications/slack';
import type { AgentTurnInput } from '../../../src/protocol';
import { pendingToolApprovalsQuery } from '../../../src/workflows/definitions';
import { startFakeSlackApi, type FakeSlackApi } from '../../support/fake-slack-api';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { auditSince, expectProblem, startGateway, type RunningGateway } from '../gateway-fixture';
import { click, clickPayload, formBodyOf, postToSlack, testSigningSecret } from './slack-clicks';

const oldSecret = 'old-signing-secret-fedcba9876543210';
const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let gateway: RunningGateway;
let slack: FakeSlackApi;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
  slack = await startFakeSlackApi();
  const notifier = new SlackNotifier({
    client: new WebClient('xoxb-test', { slackApiUrl: slack.url, retryConfig: { retries: 0 } }),
  });
  gateway = await startGateway(environment.tollgate, {
    extensions: [
      slackExtension({
        signingSecrets: [testSigningSecret, oldSecret],
        notifier,
        deliveryRetry: { attempts: 3, initialDelayMs: 100 },
      }),
    ],
  });
});
afterAll(async () => {
  await gateway?.close();
  await slack?.close();
  await environment?.close();
});

/** Starts a turn whose model asks to delete a file, and waits until the call is pending. */
async function waitingTurn(extra: Partial<AgentTurnInput> = {}) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'notes.txt' } }] },
    { text: 'finished' },
  );
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} tidy up` }],
    ...extra,
  });
  const [approval] = await waitForPending(handle, 1);
  const toolRuns = () => runs.filter((run) => run.toolCallId === `${marker}-1`);
  return { handle, approvalId: approval!.approvalId, toolRuns };
}

/** Attempts the gateway audit holds for an approval, once `count` are there. */
function auditOf(approvalId: string, count: number) {
  return waitFor(
    async () => gateway.audit.list({ approvalId }),
    (attempts) => attempts.length >= count,
  );
}

/** Asserts that nothing was decided: still pending, nothing in either audit, the tool not run. */
async function expectUnchanged(turn: Awaited<ReturnType<typeof waitingTurn>>) {
  // Long enough for a delivery that was wrongly started to reach Temporal.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(await turn.handle.query(pendingToolApprovalsQuery)).toHaveLength(1);
  expect(gateway.audit.list({ approvalId: turn.approvalId })).toEqual([]);
  expect(turn.toolRuns()).toHaveLength(0);
}

describe('Slack interactivity', () => {
  it('acknowledges a signed click at once and approves under the Slack identity from the payload', async () => {
    const turn = await waitingTurn();
    const response = await click(gateway, turn.approvalId, { user: 'U123' });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');

    const result = await turn.handle.result();
    expect(result.audit).toEqual([
      expect.objectContaining({ approvalId: turn.approvalId, decision: 'approved', approver: 'slack:U123' }),
    ]);
    expect(turn.toolRuns()).toHaveLength(1);
    expect(await auditOf(turn.approvalId, 1)).toEqual([
      expect.objectContaining({ approver: 'slack:U123', channel: 'slack', approved: true, outcome: 'recorded' }),
    ]);
  });

  it('keeps every refused Slack request in GET /v1/audit with its cause, and the approval still waits', async () => {
    const since = new Date();
    const turn = await waitingTurn({ approvalRules: { approvers: ['slack:U456'] } });
    const body = formBodyOf(clickPayload(turn.approvalId));
    const forged = await postToSlack(gateway, body, { secret: 'forged-secret' });
    expectProblem(forged, 401, 'unauthorized');
    // A payload Slack signed six minutes ago, sent again: a replay.
    expectProblem(await postToSlack(gateway, body, { at: Math.floor(Date.now() / 1000) - 360 }), 401, 'unauthorized');
    expectProblem(await click(gateway, turn.approvalId, { actionId: 'tollgate_approve_all' }), 400, 'invalid-request');
    expect((await click(gateway, turn.approvalId, { user: 'U999' })).status).toBe(200);

    const attempts = await auditSince(gateway, since, (found) => found.some((a) => a.approver === 'slack:U999'));
    const unverified = { channel: 'slack', approver: '(unauthenticated)', approvalId: '(unknown)', outcome: 'refused' };
    expect(attempts).toEqual([
      expect.objectContaining({
        ...unverified,
        from: expect.any(String),
        refusal: { code: 'unauthorized', detail: expect.stringContaining('the signature does not match') },
      }),
      expect.objectContaining({
        ...unverified,
        refusal: { code: 'unauthorized', detail: expect.stringContaining('more than 300 s from now') },
      }),
      expect.objectContaining({
        ...unverified,
        refusal: { code: 'invalid-request', detail: expect.stringContaining('payload.actions.0.action_id') },
      }),
      expect.objectContaining({
        channel: 'slack',
        approver: 'slack:U999',
        approvalId: turn.approvalId,
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'forbidden', detail: expect.stringContaining('slack:U999') }),
      }),
    ]);
    // Nothing of the signature or the secret is kept.
    expect(JSON.stringify(attempts)).not.toMatch(/v0=|forged-secret|signing-secret/);
    expect(await turn.handle.query(pendingToolApprovalsQuery)).toHaveLength(1);
    expect(turn.toolRuns()).toHaveLength(0);
  });

  it('denies on the Deny button, and the tool never runs', async () => {
    const turn = await waitingTurn();
    expect((await click(gateway, turn.approvalId, { approve: false, user: 'U777' })).status).toBe(200);
    const result = await turn.handle.result();
    expect(result.audit).toEqual([expect.objectContaining({ decision: 'denied', approver: 'slack:U777' })]);
    expect(turn.toolRuns()).toHaveLength(0);
  });

  it('treats a replayed click as harmless: the first decision stands and the audit shows a repeat', async () => {
    const turn = await waitingTurn();
    const body = formBodyOf(clickPayload(turn.approvalId, { user: 'U123' }));
    const at = Math.floor(Date.now() / 1000);
    expect((await postToSlack(gateway, body, { at })).status).toBe(200);
    await auditOf(turn.approvalId, 1);
    expect((await postToSlack(gateway, body, { at })).status).toBe(200);
    const attempts = await auditOf(turn.approvalId, 2);
    expect(attempts.map((attempt) => [attempt.approver, attempt.outcome])).toEqual([
      ['slack:U123', 'recorded'],
      ['slack:U123', 'repeat'],
    ]);
    const result = await turn.handle.result();
    expect(result.audit).toEqual([expect.objectContaining({ decision: 'approved', approver: 'slack:U123' })]);
    expect(turn.toolRuns()).toHaveLength(1);
  });

  it('refuses a forged signature with a 401 problem and changes nothing', async () => {
    const turn = await waitingTurn();
    const response = await postToSlack(gateway, formBodyOf(clickPayload(turn.approvalId)), { secret: 'forged-secret' });
    expectProblem(response, 401, 'unauthorized');
    await expectUnchanged(turn);
  });

  it('refuses a timestamp 301 s old or 10 minutes in the future', async () => {
    const turn = await waitingTurn();
    const body = formBodyOf(clickPayload(turn.approvalId));
    const now = Math.floor(Date.now() / 1000);
    expectProblem(await postToSlack(gateway, body, { at: now - 301 }), 401, 'unauthorized');
    expectProblem(await postToSlack(gateway, body, { at: now + 600 }), 401, 'unauthorized');
    await expectUnchanged(turn);
  });

  it('refuses a missing or non-numeric timestamp', async () => {
    const turn = await waitingTurn();
    const body = formBodyOf(clickPayload(turn.approvalId));
    const signed = await postToSlack(gateway, body, { headers: { 'x-slack-request-timestamp': 'soon' } });
    expectProblem(signed, 401, 'unauthorized');
    const unstamped = await gateway.call('POST', '/slack/interactivity', {
      token: null,
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-signature': `v0=${'0'.repeat(64)}` },
    });
    expectProblem(unstamped, 401, 'unauthorized');
    await expectUnchanged(turn);
  });

  it('refuses a body re-encoded after signing, though it means the same', async () => {
    const turn = await waitingTurn();
    const payload = JSON.stringify(clickPayload(turn.approvalId));
    const signedAs = `payload=${encodeURIComponent(payload)}`;
    const sentAs = formBodyOf(clickPayload(turn.approvalId));
    expect(sentAs).not.toBe(signedAs);
    expect(new URLSearchParams(sentAs).get('payload')).toBe(new URLSearchParams(signedAs).get('payload'));
    const signature = signSlackRequest(signedAs, testSigningSecret);
    expectProblem(await postToSlack(gateway, sentAs, { signed: false, headers: signature }), 401, 'unauthorized');
    await expectUnchanged(turn);
  });

  it('refuses an unsigned ssl_check=1 that carries a payload, and answers a signed certificate check', async () => {
    const turn = await waitingTurn();
    const body = `ssl_check=1&${formBodyOf(clickPayload(turn.approvalId))}`;
    expectProblem(await postToSlack(gateway, body, { signed: false }), 401, 'unauthorized');
    await expectUnchanged(turn);
    const check = await postToSlack(gateway, 'ssl_check=1&token=abc');
    expect(check.status).toBe(200);
  });

  it('refuses a signature of the wrong length or not hex with a 401, never a 500', async () => {
    const turn = await waitingTurn();
    const body = formBodyOf(clickPayload(turn.approvalId));
    for (const signature of ['v0=abc', `v0=${'a'.repeat(66)}`, `v0=${'g'.repeat(64)}`, 'v0=', 'sha256=abc']) {
      const response = await postToSlack(gateway, body, { headers: { 'x-slack-signature': signature } });
      expectProblem(response, 401, 'unauthorized');
    }
    await expectUnchanged(turn);
  });

  it('answers 400 for an unknown action_id or an unparsable value after a good signature, and decides nothing', async () => {
    const turn = await waitingTurn();
    const unknownAction = await click(gateway, turn.approvalId, { actionId: 'tollgate_approve_all' });
    expectProblem(unknownAction, 400, 'invalid-request');
    expect(unknownAction.body.errors).toEqual([
      { field: 'payload.actions.0.action_id', message: expect.stringContaining('tollgate_approve') },
    ]);
    for (const value of ['', '{"approvalId": 1}', '../../etc/passwd', 'x'.repeat(600)]) {
      const response = await click(gateway, value);
      expectProblem(response, 400, 'invalid-request');
      expect(response.body.errors[0].field).toBe('payload.actions.0.value');
    }
    expectProblem(await postToSlack(gateway, 'payload=%7Bnot-json'), 400, 'malformed-json');
    expectProblem(await postToSlack(gateway, 'payload=%7B%7D'), 400, 'invalid-request');
    const polluted = formBodyOf({ ...clickPayload(turn.approvalId) }).replace(
      '%22type%22',
      '%22__proto__%22%3A%7B%7D%2C%22type%22',
    );
    expectProblem(await postToSlack(gateway, polluted), 400, 'invalid-request');
    expectProblem(
      await postToSlack(gateway, JSON.stringify(clickPayload(turn.approvalId)), {
        headers: { 'content-type': 'application/json' },
      }),
      415,
      'unsupported-media-type',
    );
    await expectUnchanged(turn);
  });

  it('accepts clicks signed with the old and with the new secret during a rotation', async () => {
    const first = await waitingTurn();
    const second = await waitingTurn();
    expect((await postToSlack(gateway, formBodyOf(clickPayload(first.approvalId)), { secret: oldSecret })).status).toBe(
      200,
    );
    expect((await postToSlack(gateway, formBodyOf(clickPayload(second.approvalId)))).status).toBe(200);
    expect((await first.handle.result()).audit[0]).toMatchObject({ decision: 'approved', approver: 'slack:U123' });
    expect((await second.handle.result()).audit[0]).toMatchObject({ decision: 'approved', approver: 'slack:U123' });
  });

  it('takes no permission from the button: a user not allowed, or the requester, is refused and told privately', async () => {
    const turn = await waitingTurn({
      requester: 'slack:U123',
      approvalRules: { approvers: ['slack:U123', 'slack:U456'], allowSelfApproval: false },
    });
    expect((await click(gateway, turn.approvalId, { user: 'U999', channel: 'C-ops' })).status).toBe(200);
    expect((await click(gateway, turn.approvalId, { user: 'U123', channel: 'C-ops' })).status).toBe(200);
    const attempts = await auditOf(turn.approvalId, 2);
    expect(attempts).toEqual([
      expect.objectContaining({
        approver: 'slack:U999',
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'forbidden' }),
      }),
      expect.objectContaining({
        approver: 'slack:U123',
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'forbidden' }),
      }),
    ]);
    expect(await turn.handle.query(pendingToolApprovalsQuery)).toHaveLength(1);
    const told = await waitFor(
      async () => slack.callsOf('chat.postEphemeral').filter((call) => call.args.channel === 'C-ops'),
      (calls) => calls.length === 2,
    );
    expect(told.map((call) => call.args.user).sort()).toEqual(['U123', 'U999']);
    expect(told[0]?.args.text).toMatch(/^Your approval was not applied: /);

    expect((await click(gateway, turn.approvalId, { user: 'U456' })).status).toBe(200);
    expect((await turn.handle.result()).audit[0]).toMatchObject({ decision: 'approved', approver: 'slack:U456' });
    expect(turn.toolRuns()).toHaveLength(1);
  });
});
