import { join } from 'node:path';
import { Writable } from 'node:stream';
import { emailExtension, LocalUsedTokenStore } from '../../../src/gateway/email';
import type { AgentTurnInput } from '../../../src/protocol';
import { pendingToolApprovalsQuery } from '../../../src/workflows/definitions';
import {
  createTestEnvironment,
  uniqueMarker,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { auditSince, startGateway, type RunningGateway } from '../gateway-fixture';
import { decisionLink, expectPageHeaders, openLink, submitForm, testLinkSecret } from './email-link-visits';
import { temporaryFolder } from '../../support/temporary-folder';

const oldSecret = 'old-link-secret-fedcba9876543210fedcba9876';
const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
  gateway = await startGateway(environment.tollgate, {
    extensions: [emailExtension({ secrets: [testLinkSecret, oldSecret], rateLimit: { max: 10_000 } })],
  });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
});

/** Starts a turn whose model asks to run `tool`, and waits until the call is pending. */
async function waitingTurn(
  tool = 'deleteFile',
  input: unknown = { path: 'notes.txt' },
  extra: Partial<AgentTurnInput> = {},
) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: tool, arguments: input }] },
    { text: 'finished' },
  );
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} tidy up` }],
    ...extra,
  });
  const [approval] = await waitForPending(handle, 1);
  const approvalId = approval!.approvalId;
  return {
    handle,
    approvalId,
    link: (decision: 'approve' | 'deny', options?: Parameters<typeof decisionLink>[3]) =>
      decisionLink(gateway.url, { workflowId: handle.workflowId, approvalId }, decision, options),
    toolRuns: () => runs.filter((run) => run.toolCallId === `${marker}-1`),
  };
}
type WaitingTurn = Awaited<ReturnType<typeof waitingTurn>>;

/** Asserts that nothing was decided: still pending, no decision in the gateway audit, the tool not run. */
async function expectUndecided(turn: WaitingTurn) {
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await turn.handle.query(pendingToolApprovalsQuery)).toHaveLength(1);
  expect(
    gateway.audit.list({ approvalId: turn.approvalId }).filter((attempt) => attempt.outcome !== 'refused'),
  ).toEqual([]);
  expect(turn.toolRuns()).toHaveLength(0);
}

function flipOneCharacter(link: string, fromEnd: number): string {
  const index = link.length - fromEnd;
  const replacement = link[index] === 'A' ? 'B' : 'A';
  return `${link.slice(0, index)}${replacement}${link.slice(index + 1)}`;
}

describe('email decision links', () => {
  it('shows a confirmation page on GET and HEAD that decides nothing and is neither cached nor referred', async () => {
    const turn = await waitingTurn('deleteFile', { path: '<b>notes</b>.txt' });
    const page = await openLink(turn.link('approve'));
    expect(page.status).toBe(200);
    expectPageHeaders(page);
    expect(page.text).toContain('Approve <code>deleteFile</code>?');
    expect(page.text).toContain('&quot;path&quot;: &quot;&lt;b&gt;notes&lt;/b&gt;.txt&quot;');
    expect(page.text).toContain('email:ana@example.com');
    expect(page.text).toMatch(/<form method="post">[\s\S]*name="reason"[\s\S]*<button type="submit"/);

    const head = await openLink(turn.link('deny'), 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(head.headers.get('referrer-policy')).toBe('same-origin');
    await expectUndecided(turn);
    expect(gateway.audit.list({ approvalId: turn.approvalId })).toEqual([]);
  });

  it('approves on the form POST as the address the link was sent to, and the tool runs', async () => {
    const turn = await waitingTurn();
    const page = await submitForm(turn.link('approve'), { body: 'reason=looks+fine' });
    expect(page.status).toBe(200);
    expectPageHeaders(page);
    expect(page.text).toContain('deleteFile is approved by email:ana@example.com');
    const result = await turn.handle.result();
    expect(result.audit).toEqual([
      expect.objectContaining({ decision: 'approved', approver: 'email:ana@example.com', reason: 'looks fine' }),
    ]);
    expect(turn.toolRuns()).toHaveLength(1);
    expect(gateway.audit.list({ approvalId: turn.approvalId })).toEqual([
      expect.objectContaining({
        approver: 'email:ana@example.com',
        channel: 'email',
        approved: true,
        outcome: 'recorded',
      }),
    ]);
  });

  it('denies with the Deny link, and the model reads the reason', async () => {
    const turn = await waitingTurn();
    expect((await submitForm(turn.link('deny'), { body: 'reason=not+during+the+freeze' })).status).toBe(200);
    const result = await turn.handle.result();
    expect(result.audit).toEqual([expect.objectContaining({ decision: 'denied', reason: 'not during the freeze' })]);
    expect(turn.toolRuns()).toHaveLength(0);
  });

  it('accepts a link signed with the old secret during a rotation', async () => {
    const turn = await waitingTurn();
    expect((await submitForm(turn.link('approve', { secret: oldSecret }))).status).toBe(200);
    expect((await turn.handle.result()).audit).toEqual([expect.objectContaining({ decision: 'approved' })]);
  });

  it('refuses a token with a flipped character, in its claims or its signature, and decides nothing', async () => {
    const turn = await waitingTurn();
    const link = turn.link('approve');
    for (const changed of [flipOneCharacter(link, 10), flipOneCharacter(link, 60), `${link}x`, link.slice(0, -1)]) {
      const page = await openLink(changed);
      expect([400, 401]).toContain(page.status);
      expectPageHeaders(page);
      expect(page.text).toContain('This link is not valid');
      expect([400, 401]).toContain((await submitForm(changed)).status);
    }
    expect((await openLink(`${gateway.url}/email/decisions/`)).status).toBe(400);
    expect((await openLink(`${gateway.url}/email/decisions/${'a'.repeat(6000)}`)).status).toBe(400);
    await expectUndecided(turn);
    expect(gateway.audit.list({ approvalId: turn.approvalId })).toEqual([]);
  });

  it('keeps every refused form POST in GET /v1/audit with its cause, and the approval still waits', async () => {
    const since = new Date();
    const turn = await waitingTurn('deleteFile', { path: 'notes.txt' }, { approvalRules: { approvers: ['bob'] } });
    const link = turn.link('approve');
    expect((await submitForm(flipOneCharacter(link, 10))).status).toBe(401);
    expect((await submitForm(turn.link('approve', { expiresAt: new Date(Date.now() - 1000) }))).status).toBe(410);
    expect((await submitForm(link, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    // ana's link, but the approval names bob alone: the wrong person.
    expect((await submitForm(link)).status).toBe(403);

    const attempts = await auditSince(gateway, since, (found) => found.length >= 4);
    const unverified = { channel: 'email', approver: '(unauthenticated)', approvalId: '(unknown)', outcome: 'refused' };
    expect(attempts).toEqual([
      expect.objectContaining({
        ...unverified,
        from: expect.any(String),
        refusal: { code: 'link-signature', detail: expect.stringContaining('signature') },
      }),
      expect.objectContaining({ ...unverified, refusal: { code: 'link-expired', detail: expect.any(String) } }),
      expect.objectContaining({
        channel: 'email',
        approver: 'email:ana@example.com',
        approvalId: turn.approvalId,
        workflowId: turn.handle.workflowId,
        outcome: 'refused',
        refusal: { code: 'forbidden', detail: expect.stringContaining('another site') },
      }),
      expect.objectContaining({
        channel: 'email',
        approver: 'email:ana@example.com',
        approvalId: turn.approvalId,
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'forbidden' }),
      }),
    ]);
    // The link is a credential: never in the audit.
    expect(JSON.stringify(attempts)).not.toContain(link.split('/').at(-1));
    await expectUndecided(turn);
  });

  it('refuses an expired link with a page that says it expired', async () => {
    const turn = await waitingTurn();
    const link = turn.link('approve', { expiresAt: new Date(Date.now() - 1000) });
    const page = await openLink(link);
    expect(page.status).toBe(410);
    expectPageHeaders(page);
    expect(page.text).toContain('expired');
    const posted = await submitForm(link);
    expect(posted.status).toBe(410);
    expect(posted.text).toContain('expired');
    await expectUndecided(turn);
  });

  it('decides once when the same link is POSTed twice at the same time', async () => {
    const turn = await waitingTurn();
    const link = turn.link('approve');
    const pages = await Promise.all([submitForm(link), submitForm(link)]);
    expect(pages.map((page) => page.status).sort()).toEqual([200, 410]);
    expect(pages.find((page) => page.status === 410)?.text).toContain('already been used');
    await turn.handle.result();
    expect(turn.toolRuns()).toHaveLength(1);
    const attempts = gateway.audit.list({ approvalId: turn.approvalId });
    expect(attempts.map((attempt) => [attempt.outcome, attempt.refusal?.code])).toEqual(
      expect.arrayContaining([
        ['recorded', undefined],
        ['refused', 'link-used'],
      ]),
    );
    expect(attempts).toHaveLength(2);
  });

  it('retires the Deny link once the Approve link is used', async () => {
    const turn = await waitingTurn();
    const deny = turn.link('deny');
    expect((await submitForm(turn.link('approve'))).status).toBe(200);
    const opened = await openLink(deny);
    expect(opened.status).toBe(410);
    expect(opened.text).toContain('already been used');
    expect((await submitForm(deny)).status).toBe(410);
    expect((await turn.handle.result()).audit).toEqual([expect.objectContaining({ decision: 'approved' })]);
    expect(turn.toolRuns()).toHaveLength(1);
  });

  it('refuses a form posted from a foreign Origin or cross-site, and the link still works afterwards', async () => {
    const turn = await waitingTurn();
    const link = turn.link('approve');
    const foreign = await submitForm(link, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expectPageHeaders(foreign);
    const crossSite = await submitForm(link, { headers: { origin: null, 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    await expectUndecided(turn);
    expect(gateway.audit.list({ approvalId: turn.approvalId })).toEqual([
      expect.objectContaining({ outcome: 'refused', refusal: expect.objectContaining({ code: 'forbidden' }) }),
      expect.objectContaining({ outcome: 'refused', refusal: expect.objectContaining({ code: 'forbidden' }) }),
    ]);
    expect((await submitForm(link)).status).toBe(200);
    await turn.handle.result();
    expect(turn.toolRuns()).toHaveLength(1);
  });

  it('refuses an email approval after a denial through another channel with 409, kept in the audit as refused', async () => {
    const turn = await waitingTurn();
    const denied = await gateway.call('POST', `/v1/approvals/${encodeURIComponent(turn.approvalId)}/decision`, {
      as: 'bob',
      body: { approved: false, reason: 'no' },
    });
    expect(denied.status).toBe(200);
    const page = await submitForm(turn.link('approve'));
    expect(page.status).toBe(409);
    expect(page.text).toContain('already denied by bob');
    expect((await turn.handle.result()).audit).toEqual([
      expect.objectContaining({ decision: 'denied', approver: 'bob' }),
    ]);
    expect(turn.toolRuns()).toHaveLength(0);
    expect(gateway.audit.list({ approvalId: turn.approvalId })).toEqual([
      expect.objectContaining({ approver: 'bob', channel: 'rest', outcome: 'recorded' }),
      expect.objectContaining({
        approver: 'email:ana@example.com',
        channel: 'email',
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'conflict' }),
      }),
    ]);
  });

  it('says "expired" on GET and POST once the approval itself has expired', async () => {
    const turn = await waitingTurn('launch', { job: 'nightly' });
    const result = await turn.handle.result();
    expect(result.audit).toEqual([expect.objectContaining({ decision: 'expired' })]);
    const link = turn.link('approve');
    const page = await openLink(link);
    expect(page.status).toBe(410);
    expect(page.text).toContain('expired');
    const posted = await submitForm(link);
    expect(posted.status).toBe(410);
    expect(posted.text).toContain('expired');
    expect(turn.toolRuns()).toHaveLength(0);
    expect(gateway.audit.list({ approvalId: turn.approvalId })).toEqual([
      expect.objectContaining({ outcome: 'refused', refusal: expect.objectContaining({ code: 'expired' }) }),
    ]);
  });

  it('answers 404 for a link to a turn that does not exist', async () => {
    const link = decisionLink(gateway.url, { workflowId: 'turn-missing', approvalId: 'dHVybi1taXNzaW5n.x' }, 'approve');
    expect((await openLink(link)).status).toBe(404);
    expect((await submitForm(link)).status).toBe(404);
  });

  it('refuses a form with unknown fields (400) or of another content type (415) without using the link', async () => {
    const turn = await waitingTurn();
    const link = turn.link('approve');
    const unknown = await submitForm(link, { body: 'reason=ok&approved=false' });
    expect(unknown.status).toBe(400);
    expectPageHeaders(unknown);
    const json = await submitForm(link, { body: '{"reason":"ok"}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    const text = await submitForm(link, { body: 'reason', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.text).toContain('application/x-www-form-urlencoded');
    await expectUndecided(turn);
    expect((await submitForm(link)).status).toBe(200);
  });

  it('answers 413 for a form over the body limit, with and without Content-Length', async () => {
    const turn = await waitingTurn();
    const link = turn.link('approve');
    const big = `reason=${'x'.repeat(70 * 1024)}`;
    expect((await submitForm(link, { body: big })).status).toBe(413);
    const chunked = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gateway.url },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    await expectUndecided(turn);
  });
});

describe('email decision links, separately configured', () => {
  it('keeps tokens out of the gateway logs', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = await startGateway(environment.tollgate, {
      logger: { level: 'trace', stream },
      extensions: [emailExtension({ secrets: [testLinkSecret] })],
    });
    try {
      const turn = await waitingTurn();
      const link = decisionLink(
        logged.url,
        { workflowId: turn.handle.workflowId, approvalId: turn.approvalId },
        'approve',
      );
      const token = link.split('/').pop() as string;
      await openLink(link);
      await openLink(link, 'HEAD');
      await openLink(flipOneCharacter(link, 5));
      await submitForm(link, { headers: { origin: 'https://evil.example' } });
      expect((await submitForm(link)).status).toBe(200);
      await turn.handle.result();
      expect(lines.join('')).toContain('refused an email decision link');
      expect(lines.join('')).not.toContain(token.slice(0, 40));
      expect(lines.join('')).not.toContain(token.slice(-20));
    } finally {
      await logged.close();
    }
  });

  it('rate-limits the link routes per address with a 429 page and retry-after', async () => {
    const limited = await startGateway(environment.tollgate, {
      extensions: [emailExtension({ secrets: [testLinkSecret], rateLimit: { max: 2 } })],
    });
    try {
      const link = `${limited.url}/email/decisions/nonsense`;
      expect((await openLink(link)).status).toBe(400);
      expect((await openLink(link)).status).toBe(400);
      const third = await openLink(link);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
      expectPageHeaders(third);
    } finally {
      await limited.close();
    }
  });

  it('refuses a used link after a gateway restart when used links are kept in a file', async () => {
    const file = join(temporaryFolder('tollgate-email-'), 'used.jsonl');
    const start = () =>
      startGateway(environment.tollgate, {
        extensions: [emailExtension({ secrets: [testLinkSecret], usedTokens: new LocalUsedTokenStore({ file }) })],
      });
    const turn = await waitingTurn();
    const first = await start();
    const link = (url: string, decision: 'approve' | 'deny') =>
      decisionLink(url, { workflowId: turn.handle.workflowId, approvalId: turn.approvalId }, decision);
    const approve = link(first.url, 'approve');
    expect((await submitForm(approve)).status).toBe(200);
    await first.close();

    const second = await start();
    try {
      const again = approve.replace(first.url, second.url);
      expect((await submitForm(again)).status).toBe(410);
      expect((await openLink(link(second.url, 'deny'))).status).toBe(410);
    } finally {
      await second.close();
    }
  });
});
