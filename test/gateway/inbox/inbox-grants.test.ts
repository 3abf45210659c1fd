import { GrantLedgerClient } from '../../../src/client';
import type { AgentTurnInput } from '../../../src/protocol';
import { pendingToolApprovalsQuery } from '../../../src/workflows';
import {
  createTestEnvironment,
  uniqueMarker,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { startInboxGateway, type InboxGateway } from './inbox-fixture';

const { tools } = createTestTools();
let environment: TestEnvironment;
let gateway: InboxGateway;

beforeAll(async () => {
  // The operator forbids grants of deploy.
  environment = await createTestEnvironment({ tools, policy: { tools: { deploy: { grants: false } } } });
  gateway = await startInboxGateway(environment.tollgate, { trustedProxies: '127.0.0.1/32,::1' });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
});

async function waitingTurn(
  call: { name: string; arguments: Record<string, unknown> },
  approvalRules?: AgentTurnInput['approvalRules'],
  requester = 'carol',
) {
  const marker = uniqueMarker();
  environment.model.scriptFor(marker, { toolCalls: [{ id: `${marker}-1`, ...call }] }, { text: 'done' });
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} go` }],
    requester,
    ...(approvalRules && { approvalRules }),
  });
  const [approval] = await waitForPending(handle, 1);
  return { handle, approvalId: approval!.approvalId };
}

const ledger = () => new GrantLedgerClient(environment.tollgate.client, environment.tollgate.taskQueue);

const allowAnHour = { approved: true, allow: { for: '1h' } };

describe('"Approve and allow…" in the inbox', () => {
  it('refuses a grant the rules do not allow with a clear error and an audit record, leaving the approval waiting', async () => {
    const own = await waitingTurn({ name: 'deleteFile', arguments: { path: 'mine.txt' } }, undefined, 'ana');
    const quorum = await waitingTurn({ name: 'deleteFile', arguments: { path: 'q.txt' } }, { quorum: 2 });
    const forbidden = await waitingTurn({ name: 'deploy', arguments: { service: 'web' } });
    const notTheirs = await waitingTurn({ name: 'deleteFile', arguments: { path: 'b.txt' } }, { approvers: ['bob'] });
    const cases = [
      [own.approvalId, /^"ana" may not grant for their own requests; someone else must\.$/],
      [quorum.approvalId, /needs 2 approvers, so no one person's grant can decide it\.$/],
      [forbidden.approvalId, /the operator's policy allows no grants for this tool/],
      [notTheirs.approvalId, /^"ana" may not decide approval ".+"; it is limited to bob\.$/],
    ] as const;
    for (const [approvalId, detail] of cases) {
      const answer = await gateway.request('POST', `/inbox/approvals/${encodeURIComponent(approvalId)}/decision`, {
        forwardedEmail: 'ana@example.com',
        json: allowAnHour,
      });
      expect(answer.status).toBe(403);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body.detail).toMatch(detail);
      const refused = gateway.audit
        .list({ approvalId })
        .filter((attempt) => attempt.grant?.action === 'grant' && attempt.outcome === 'refused');
      expect(refused).toEqual([
        expect.objectContaining({
          channel: 'inbox',
          approver: 'ana',
          refusal: expect.objectContaining({ code: 'forbidden' }),
        }),
      ]);
    }
    for (const turn of [own, quorum, forbidden, notTheirs]) {
      const pending = await turn.handle.query(pendingToolApprovalsQuery);
      expect(pending.map((approval) => approval.approvalId)).toEqual([turn.approvalId]);
    }
    expect(await ledger().list()).toEqual([]);
  });

  it('revokes only from its own pages, for a signed-in person', async () => {
    const turn = await waitingTurn({ name: 'deleteFile', arguments: { path: 'c.txt' } });
    const decided = await gateway.request('POST', `/inbox/approvals/${encodeURIComponent(turn.approvalId)}/decision`, {
      forwardedEmail: 'bob@example.com',
      json: { approved: true, allow: { uses: 2 } },
    });
    expect(decided.status).toBe(200);
    const grantId = decided.body.allowed.grantId as string;
    expect(decided.body.sentence).toContain(`grant ${grantId}`);

    const listed = await gateway.request('GET', '/inbox/grants', { forwardedEmail: 'ana@example.com' });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain(`data-grant-id="${grantId}"`);
    expect((await gateway.request('GET', '/inbox/grants')).text).toContain('Sign in');

    const foreign = await gateway.request('POST', `/inbox/grants/${grantId}/revoke`, {
      forwardedEmail: 'ana@example.com',
      form: {},
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(foreign.status).toBe(403);
    const signedOut = await gateway.request('POST', `/inbox/grants/${grantId}/revoke`, { form: {} });
    expect(signedOut.text).toContain('Sign in');
    expect((await ledger().list())[0]?.revokedAt).toBeUndefined();

    const revoked = await gateway.request('POST', `/inbox/grants/${grantId}/revoke`, {
      forwardedEmail: 'ana@example.com',
      form: {},
    });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe(`/inbox/grants?revoked=${grantId}`);
    expect((await ledger().list())[0]).toMatchObject({ grantId, revokedBy: 'ana' });
    expect(gateway.audit.list().at(-1)).toMatchObject({
      channel: 'inbox',
      approver: 'ana',
      grant: { action: 'revoke', grantId },
      outcome: 'recorded',
    });
  });
});
