import type { AgentTurnInput } from '../../../src/protocol';
import { startSmtpTestServer, type SmtpTestServer } from '../../support/smtp-test-server';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { testTokens } from '../gateway-fixture';
import { sessionCookieOf, sharedUsedTokens, startInboxGateway, type InboxGateway } from './inbox-fixture';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let smtp: SmtpTestServer;
// Two gateways behind one public URL, sharing one store: the first trusts this machine as its proxy, the second
// trusts only 10.0.0.0/8.
let first: InboxGateway;
let second: InboxGateway;

beforeAll(async () => {
  smtp = await startSmtpTestServer();
  // ana may approve deleteFile with changed arguments (the operator's policy names editors; nobody else may).
  environment = await createTestEnvironment({ tools, policy: { tools: { deleteFile: { editors: ['ana'] } } } });
  const usedTokensFolder = sharedUsedTokens();
  first = await startInboxGateway(environment.tollgate, {
    smtpUrl: smtp.url,
    usedTokens: usedTokensFolder,
    trustedProxies: '127.0.0.1/32,::1',
  });
  second = await startInboxGateway(environment.tollgate, {
    smtpUrl: smtp.url,
    usedTokens: usedTokensFolder,
    publicUrl: first.url,
    trustedProxies: '10.0.0.0/8',
  });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await environment?.close();
  await smtp?.close();
});

async function waitingTurn(approvalRules?: AgentTurnInput['approvalRules'], requester = 'carol') {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: `${marker}.txt` } }] },
    { text: 'done' },
  );
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} tidy up` }],
    requester,
    ...(approvalRules && { approvalRules }),
  });
  const [approval] = await waitForPending(handle, 1);
  const toolRuns = () => runs.filter((run) => run.toolCallId === `${marker}-1`);
  return { handle, approvalId: approval!.approvalId, marker, toolRuns };
}

/** The approvalIds the inbox lists for `as` (through the trusted proxy), once `until` holds. */
async function listedFor(as: string, until: (ids: string[]) => boolean): Promise<string[]> {
  return waitFor(
    async () => {
      const answer = await first.request('GET', '/inbox/approvals', { forwardedEmail: as });
      expect(answer.status).toBe(200);
      return (answer.body.approvals as Array<{ approvalId: string }>).map((approval) => approval.approvalId);
    },
    until,
    20_000,
  );
}

async function signInByMail(address: string): Promise<{ link: string }> {
  const asked = await first.request('POST', '/inbox/sign-in', { form: { email: address } });
  expect(asked.status).toBe(200);
  const mail = await smtp.waitForMail((mail) => mail.to.includes(address) && mail.subject.includes('Sign in'));
  const link = mail.links.find((candidate) => candidate.includes('/inbox/sign-in/'));
  expect(link).toMatch(new RegExp(`^${first.url}/inbox/sign-in/`));
  smtp.mails.splice(smtp.mails.indexOf(mail), 1);
  return { link: link! };
}

describe('the approver inbox', () => {
  it('lists only the approvals the person may decide, with tool, readable arguments, requester and quorum', async () => {
    const forBob = await waitingTurn({ approvers: ['bob'] });
    const forAna = await waitingTurn({ approvers: ['ana'], quorum: 2 });
    const forAnyone = await waitingTurn();

    const ana = await listedFor(
      'ana@example.com',
      (ids) => ids.includes(forAna.approvalId) && ids.includes(forAnyone.approvalId),
    );
    expect(ana).not.toContain(forBob.approvalId);
    const bob = await listedFor('bob@example.com', (ids) => ids.includes(forBob.approvalId));
    expect(bob).not.toContain(forAna.approvalId);

    const page = await first.request('GET', '/inbox', { forwardedEmail: 'ana@example.com' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).toContain('Signed in as <strong>ana</strong>');
    expect(page.text).toContain(`<dt>path</dt><dd>${forAna.marker}.txt</dd>`);
    expect(page.text).toContain('Requested by</dt><dd>carol');
    expect(page.text).toContain('0 of 2 approvals');
    expect(page.text).toContain('<section id="stats"');
    expect(page.text).toContain('Approve deleteFile');
    expect(page.text).not.toContain(forBob.approvalId);

    // The statistics chart is for those who may read the audit too: not ana, the lead.
    expect(page.text).toMatch(/<section id="stats"[^>]* hidden>/);
    expect((await first.request('GET', '/inbox/stats', { forwardedEmail: 'ana@example.com' })).status).toBe(403);
    const leadPage = await first.request('GET', '/inbox', { forwardedEmail: 'lead@example.com' });
    expect(leadPage.text).toContain('<section id="stats" aria-label="Approval statistics" data-src="/inbox/stats">');
    const chart = await first.request('GET', '/inbox/stats', { forwardedEmail: 'lead@example.com' });
    expect(chart.status).toBe(200);
    expect(chart.body.svg).toMatch(/^<svg[^>]*role="img"/);
    expect(chart.body.svg).toContain('deleteFile');

    // Someone in the identity map whose tokens decide nothing is not let in.
    const auditor = await first.request('GET', '/inbox/approvals', { forwardedEmail: 'auditor@example.com' });
    expect(auditor.status).toBe(403);
    for (const turn of [forBob, forAna, forAnyone]) await turn.handle.cancel();
  });

  it('approves, denies with a reason, and approves several; each reaches the turn and the audit as the inbox', async () => {
    const one = await waitingTurn();
    const two = await waitingTurn();
    const three = await waitingTurn();
    const four = await waitingTurn();
    const as = { forwardedEmail: 'ana@example.com' };

    const approved = await first.request('POST', `/inbox/approvals/${encodeURIComponent(one.approvalId)}/decision`, {
      ...as,
      json: { approved: true },
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ decision: 'approved', sentence: 'deleteFile approved by you.' });
    const denied = await first.request('POST', `/inbox/approvals/${encodeURIComponent(two.approvalId)}/decision`, {
      ...as,
      json: { approved: false, reason: 'not during the freeze' },
    });
    expect(denied.body).toMatchObject({
      decision: 'denied',
      sentence: 'deleteFile denied by you (reason: not during the freeze).',
    });
    // Approve several: the page sends one decision per ticked approval.
    for (const turn of [three, four]) {
      const answer = await first.request('POST', `/inbox/approvals/${encodeURIComponent(turn.approvalId)}/decision`, {
        ...as,
        json: { approved: true },
      });
      expect(answer.status).toBe(200);
    }

    expect((await one.handle.result()).audit).toEqual([
      expect.objectContaining({ decision: 'approved', approver: 'ana' }),
    ]);
    expect((await two.handle.result()).audit).toEqual([
      expect.objectContaining({ decision: 'denied', approver: 'ana', reason: 'not during the freeze' }),
    ]);
    for (const turn of [three, four]) {
      expect((await turn.handle.result()).audit).toEqual([
        expect.objectContaining({ decision: 'approved', approver: 'ana' }),
      ]);
    }
    expect(one.toolRuns()).toHaveLength(1);
    expect(two.toolRuns()).toHaveLength(0);
    expect(three.toolRuns()).toHaveLength(1);
    expect(four.toolRuns()).toHaveLength(1);
    expect(await first.audit.read({ approvalId: two.approvalId })).toEqual([
      expect.objectContaining({
        channel: 'inbox',
        approver: 'ana',
        identity: 'inbox:proxy:ana@example.com',
        approved: false,
        reason: 'not during the freeze',
        outcome: 'recorded',
      }),
    ]);
  });

  it('keeps the same rules as every channel: approver lists, self-approval, another site’s form', async () => {
    const forBob = await waitingTurn({ approvers: ['bob'] });
    const own = await waitingTurn({ allowSelfApproval: false }, 'ana');
    const path = (approvalId: string) => `/inbox/approvals/${encodeURIComponent(approvalId)}/decision`;

    const notHers = await first.request('POST', path(forBob.approvalId), {
      forwardedEmail: 'ana@example.com',
      json: { approved: true },
    });
    expect(notHers.status).toBe(403);
    const self = await first.request('POST', path(own.approvalId), {
      forwardedEmail: 'ana@example.com',
      json: { approved: true },
    });
    expect(self.status).toBe(403);
    const foreign = await first.request('POST', path(own.approvalId), {
      forwardedEmail: 'bob@example.com',
      json: { approved: true },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(foreign.status).toBe(403);
    // Edited arguments only for people the descriptor names as editors (none here).
    const edited = await first.request('POST', path(own.approvalId), {
      forwardedEmail: 'bob@example.com',
      json: { approved: true, input: { path: 'elsewhere.txt' } },
    });
    expect(edited.status).toBe(403);

    expect(
      await own.handle.query((await import('../../../src/workflows/definitions')).pendingToolApprovalsQuery),
    ).toHaveLength(1);
    expect(forBob.toolRuns()).toHaveLength(0);
    const refusals = await first.audit.read({ approvalId: own.approvalId });
    expect(refusals.map((attempt) => [attempt.approver, attempt.channel, attempt.outcome])).toEqual([
      ['ana', 'inbox', 'refused'],
      ['bob', 'inbox', 'refused'],
      ['bob', 'inbox', 'refused'],
    ]);
    await forBob.handle.cancel();
    await own.handle.cancel();
  });

  it('keeps every refused inbox decision in GET /v1/audit with its cause: not signed in, not allowed, a bad request', async () => {
    const turn = await waitingTurn({ approvers: ['bob'] });
    const path = `/inbox/approvals/${encodeURIComponent(turn.approvalId)}/decision`;
    expect((await first.request('POST', path, { json: { approved: true } })).status).toBe(401);
    const forged = await first.request('POST', path, {
      cookie: 'tollgate_inbox=eyJwZXJzb24iOiJhbmEifQ.AAAA',
      json: { approved: true },
    });
    expect(forged.status).toBe(401);
    // The trusted proxy names someone whose tokens decide nothing.
    const notAllowed = await first.request('POST', path, {
      forwardedEmail: 'auditor@example.com',
      json: { approved: true },
    });
    expect(notAllowed.status).toBe(403);
    const unreadable = await first.request('POST', path, {
      forwardedEmail: 'ana@example.com',
      json: { approved: 'yes' },
    });
    expect(unreadable.status).toBe(400);
    const crossSite = await first.request('POST', path, {
      forwardedEmail: 'ana@example.com',
      json: { approved: false },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);

    const audit = await first.request('GET', `/v1/audit?approvalId=${encodeURIComponent(turn.approvalId)}`, {
      headers: { authorization: `Bearer ${testTokens.auditor}` },
    });
    expect(audit.status).toBe(200);
    const refused = { channel: 'inbox', approvalId: turn.approvalId, outcome: 'refused' };
    expect(audit.body.attempts).toEqual([
      expect.objectContaining({
        ...refused,
        approver: '(unauthenticated)',
        from: expect.any(String),
        refusal: { code: 'unauthorized', detail: expect.stringContaining('Sign in') },
      }),
      expect.objectContaining({
        ...refused,
        approver: '(unauthenticated)',
        refusal: expect.objectContaining({ code: 'unauthorized' }),
      }),
      expect.objectContaining({
        ...refused,
        approver: 'inbox:proxy:auditor@example.com',
        refusal: expect.objectContaining({ code: 'forbidden' }),
      }),
      expect.objectContaining({
        ...refused,
        approver: 'ana',
        refusal: expect.objectContaining({ code: 'invalid-request' }),
      }),
      expect.objectContaining({
        ...refused,
        approver: 'ana',
        approved: false,
        refusal: { code: 'forbidden', detail: expect.stringContaining('another site') },
      }),
    ]);
    // The session cookie is a credential: never in the audit.
    expect(audit.text).not.toContain('eyJwZXJzb24iOiJhbmEifQ');
    expect(
      await turn.handle.query((await import('../../../src/workflows/definitions')).pendingToolApprovalsQuery),
    ).toHaveLength(1);
    expect(turn.toolRuns()).toHaveLength(0);
    await turn.handle.cancel();
  });

  it('approves with edited arguments for an editor: the tool runs with them, the audit shows both', async () => {
    const turn = await waitingTurn();
    await listedFor('ana@example.com', (ids) => ids.includes(turn.approvalId));
    const page = await first.request('GET', '/inbox', { forwardedEmail: 'ana@example.com' });
    expect(page.text).toContain('Edit arguments of deleteFile');
    const path = `/inbox/approvals/${encodeURIComponent(turn.approvalId)}/decision`;
    // Input the tool's schema refuses changes nothing.
    const wrong = await first.request('POST', path, {
      forwardedEmail: 'ana@example.com',
      json: { approved: true, input: { path: 42 } },
    });
    expect(wrong.status).toBe(400);
    const edited = await first.request('POST', path, {
      forwardedEmail: 'ana@example.com',
      json: { approved: true, input: { path: `${turn.marker}-kept.txt` } },
    });
    expect(edited.status).toBe(200);
    const result = await turn.handle.result();
    expect(turn.toolRuns().map((run) => run.input)).toEqual([{ path: `${turn.marker}-kept.txt` }]);
    expect(result.audit).toEqual([
      expect.objectContaining({
        decision: 'approved',
        approver: 'ana',
        input: { path: `${turn.marker}.txt` },
        editedInput: { path: `${turn.marker}-kept.txt` },
        editedBy: 'ana',
      }),
    ]);
    const attempts = await first.audit.read({ approvalId: turn.approvalId });
    expect(attempts.map((attempt) => [attempt.channel, attempt.outcome])).toEqual([
      ['inbox', 'refused'],
      ['inbox', 'recorded'],
    ]);
  });

  it('believes X-Forwarded-Email only from a trusted proxy address', async () => {
    // The second gateway trusts 10.0.0.0/8; this test connects from 127.0.0.1.
    const page = await second.request('GET', '/inbox', { forwardedEmail: 'ana@example.com' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Sign in to the approval inbox');
    expect(page.text).not.toContain('Signed in as');
    const listing = await second.request('GET', '/inbox/approvals', { forwardedEmail: 'ana@example.com' });
    expect(listing.status).toBe(401);
    const trusted = await first.request('GET', '/inbox/approvals', { forwardedEmail: 'ana@example.com' });
    expect(trusted.status).toBe(200);
  });

  it('answers an unknown address exactly as a known one, and mails only the known one', async () => {
    const known = await first.request('POST', '/inbox/sign-in', { form: { email: 'eve@example.com' } });
    const unknown = await first.request('POST', '/inbox/sign-in', { form: { email: 'nobody@example.com' } });
    const notDeciding = await first.request('POST', '/inbox/sign-in', { form: { email: 'auditor@example.com' } });
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(notDeciding.text).toBe(known.text);
    expect(known.text).toContain('Check your mail');
    await smtp.waitForMail((mail) => mail.to.includes('eve@example.com'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      smtp.mails.filter((mail) => mail.to.includes('nobody@example.com') || mail.to.includes('auditor@example.com')),
    ).toEqual([]);
  });

  it('signs in with a one-time link that works once across gateways, into a session every gateway accepts until sign-out', async () => {
    const { link } = await signInByMail('bob@example.com');
    const linkPath = new URL(link).pathname;

    // Opening the link (a mail scanner, say) signs nobody in.
    const opened = await first.request('GET', linkPath);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('set-cookie')).toBeNull();
    expect(opened.text).toContain('bob@example.com');

    const signedIn = await first.request('POST', linkPath);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/inbox');
    expect(signedIn.headers.get('set-cookie')).toMatch(/HttpOnly/);
    expect(signedIn.headers.get('set-cookie')).toMatch(/SameSite=Lax/);
    const cookie = sessionCookieOf(signedIn);

    // The same link through the other gateway, sharing the store: refused.
    const again = await second.request('POST', linkPath);
    expect(again.status).toBe(410);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect((await second.request('GET', linkPath)).status).toBe(410);

    // The session is good on either gateway: nothing about it lives in one process.
    const onSecond = await second.request('GET', '/inbox', { cookie });
    expect(onSecond.text).toContain('Signed in as <strong>bob</strong>');
    expect((await second.request('GET', '/inbox/approvals', { cookie })).status).toBe(200);

    // A decision posted from another site with the cookie is refused.
    const turn = await waitingTurn();
    const foreign = await second.request('POST', `/inbox/approvals/${encodeURIComponent(turn.approvalId)}/decision`, {
      cookie,
      json: { approved: true },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const decided = await second.request('POST', `/inbox/approvals/${encodeURIComponent(turn.approvalId)}/decision`, {
      cookie,
      json: { approved: true },
    });
    expect(decided.status).toBe(200);
    expect(await second.audit.read({ approvalId: turn.approvalId })).toEqual([
      expect.objectContaining({ outcome: 'refused', channel: 'inbox' }),
      expect.objectContaining({ outcome: 'recorded', channel: 'inbox', identity: 'inbox:email:bob@example.com' }),
    ]);

    // Signing out through one gateway ends the session on all of them.
    const signedOut = await second.request('POST', '/inbox/sign-out', { cookie });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await first.request('GET', '/inbox/approvals', { cookie })).status).toBe(401);
    expect((await first.request('GET', '/inbox', { cookie })).text).toContain('Sign in to the approval inbox');
  });

  it('refuses a forged or altered session cookie, and a link from another site’s form', async () => {
    const forged = await first.request('GET', '/inbox/approvals', {
      cookie: 'tollgate_inbox=eyJwZXJzb24iOiJhbmEifQ.AAAA',
    });
    expect(forged.status).toBe(401);
    const { link } = await signInByMail('ana@example.com');
    const foreign = await first.request('POST', new URL(link).pathname, {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(foreign.status).toBe(403);
    // Not used up by the refused attempt.
    expect((await first.request('POST', new URL(link).pathname)).status).toBe(303);
  });
});
