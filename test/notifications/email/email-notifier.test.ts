import nodemailer from 'nodemailer';
import {
  classifySmtpError,
  EmailNotifier,
  emailNotifierFromEnvironment,
  verifyDecisionToken,
} from '../../../src/notifications/email';
import type { ApprovalNotice } from '../../../src/notifications/notification-types';
import { startSmtpTestServer, type SmtpTestServer } from '../../support/smtp-test-server';

const secret = 'link-secret-0123456789abcdef0123456789abcdef';
const gatewayUrl = 'https://tollgate.example.com/';
let smtp: SmtpTestServer;
let notifier: EmailNotifier;

beforeAll(async () => {
  smtp = await startSmtpTestServer();
  notifier = new EmailNotifier({
    transport: nodemailer.createTransport(smtp.url),
    from: 'Tollgate <tollgate@example.com>',
    gatewayUrl,
    secrets: [secret],
  });
});
afterAll(async () => {
  await smtp?.close();
});

function noticeFor(tag: string, extra: Partial<ApprovalNotice['approval']> = {}): ApprovalNotice {
  return {
    workflowId: `turn-${tag}`,
    requester: 'carol',
    approval: {
      approvalId: `approval-${tag}`,
      toolCallId: `call-${tag}`,
      toolName: 'deleteFile',
      input: { path: `<script>alert(1)</script>-${tag}.txt`, content: 'x'.repeat(10_000) },
      requestedAt: '2030-01-01T12:00:00.000Z',
      step: 1,
      ...extra,
    },
  };
}

function claimsOfLink(link: string) {
  const token = link.slice(`${gatewayUrl.replace(/\/$/, '')}/email/decisions/`.length);
  const verified = verifyDecisionToken(token, { secrets: [secret], now: new Date() });
  if (!verified.ok) throw new Error(`link refused: ${verified.reason}`);
  return verified.claims;
}

describe('EmailNotifier', () => {
  it('mails each address its own Approve and Deny links over SMTP, with the call described', async () => {
    const notice = noticeFor('each');
    const receipt = await notifier.requested(
      notice,
      { type: 'email', to: ['ana@example.com', 'bob@example.com'] },
      'request',
    );
    expect(receipt).toEqual({
      type: 'email',
      to: ['ana@example.com', 'bob@example.com'],
      messageId: expect.stringMatching(/^<[^ ]+> <[^ ]+>$/),
    });

    for (const address of ['ana@example.com', 'bob@example.com']) {
      const mail = await smtp.waitForMail((mail) => mail.to.includes(address) && mail.text.includes('turn-each'));
      expect(mail.to).toEqual([address]);
      expect(mail.from).toBe('tollgate@example.com');
      expect(mail.subject).toBe('Approval needed: deleteFile');
      expect(mail.headers['auto-submitted']).toBe('auto-generated');
      expect(mail.text).toContain('Requested by: carol');
      expect(mail.text).toContain('"path": "<script>alert(1)</script>-each.txt"');
      expect(mail.text).toContain('(9500 more characters)');
      expect(mail.html).toContain('&quot;path&quot;: &quot;&lt;script&gt;alert(1)&lt;/script&gt;-each.txt&quot;');
      expect(mail.html).not.toContain('<script>');

      const [approve, deny, inbox] = mail.links;
      expect(mail.links).toHaveLength(3);
      // Open in inbox: for a fuller view and for edits.
      expect(inbox).toBe('https://tollgate.example.com/inbox#approval-each');
      expect(mail.html).toContain('href="https://tollgate.example.com/inbox#approval-each">Open in inbox</a>');
      expect(approve).toMatch(/^https:\/\/tollgate\.example\.com\/email\/decisions\/[A-Za-z0-9_.-]+$/);
      expect(mail.html).toContain(`href="${approve}"`);
      const approveClaims = claimsOfLink(approve!);
      const denyClaims = claimsOfLink(deny!);
      expect(approveClaims).toMatchObject({
        workflowId: 'turn-each',
        approvalId: 'approval-each',
        approver: `email:${address}`,
        decision: 'approve',
      });
      expect(denyClaims).toMatchObject({ approver: `email:${address}`, decision: 'deny', pair: approveClaims.pair });
      // About seven days when the approval itself does not expire.
      expect(approveClaims.exp * 1000 - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    }
    expect(receipt.type === 'email' && receipt.messageId.split(' ')).toEqual(
      ['ana@example.com', 'bob@example.com'].map(
        (address) =>
          smtp.mails.find((mail) => mail.to.includes(address) && mail.text.includes('turn-each'))?.headers[
            'message-id'
          ],
      ),
    );
  });

  it('marks a reminder in the subject and ends the links when the approval expires, if sooner', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    await notifier.requested(
      noticeFor('reminder', { expiresAt: expiresAt.toISOString() }),
      { type: 'email', to: ['ana@example.com'] },
      'reminder',
    );
    const mail = await smtp.waitForMail((mail) => mail.text.includes('turn-reminder'));
    expect(mail.subject).toBe('Reminder: approval still needed: deleteFile');
    expect(claimsOfLink(mail.links[0]!).exp).toBe(Math.floor(expiresAt.getTime() / 1000));
  });

  it("says in a warning's subject and first line how long is left before the approval expires", async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    await notifier.requested(
      noticeFor('warning', { expiresAt: expiresAt.toISOString() }),
      { type: 'email', to: ['ana@example.com'] },
      'expiry-warning',
    );
    const mail = await smtp.waitForMail((mail) => mail.text.includes('turn-warning'));
    expect(mail.subject).toBe('Expires in 1 h: approval still needed: deleteFile');
    expect(mail.text.split('\n')[0]).toBe(
      'Expires in 1 h: deleteFile still needs your decision, or it is denied as expired.',
    );
    // Approve, deny, and the inbox (for a fuller view or an edit).
    expect(mail.links).toHaveLength(3);
    expect(mail.links[2]).toBe('https://tollgate.example.com/inbox#approval-warning');
    expect(claimsOfLink(mail.links[0]!).exp).toBe(Math.floor(expiresAt.getTime() / 1000));
  });

  it('follows up on a superseded request as superseded, not as denied by nobody', async () => {
    const notice = noticeFor('superseded');
    const receipt = await notifier.requested(notice, { type: 'email', to: ['ana@example.com'] }, 'request');
    const decision = {
      ...notice.approval,
      decision: 'denied' as const,
      reason: 'superseded by a new message',
      decidedAt: '2030-01-01T12:05:00.000Z',
      via: 'superseded' as const,
    };
    await notifier.resolved(notice, decision, receipt);
    const mail = await smtp.waitForMail((mail) => mail.subject === 'Superseded: deleteFile');
    expect(mail.text).toContain('deleteFile was superseded by a newer message (denied) at 2030-01-01T12:05:00.000Z.');
  });

  it('follows up in the same thread when the approval is resolved', async () => {
    const notice = noticeFor('resolved');
    const receipt = await notifier.requested(notice, { type: 'email', to: ['ana@example.com'] }, 'request');
    await notifier.resolved(
      notice,
      {
        ...notice.approval,
        decision: 'denied',
        reason: 'not now',
        approver: 'email:bob@example.com',
        decidedAt: '2030-01-01T12:05:00.000Z',
        via: 'update',
      },
      receipt,
    );
    const mail = await smtp.waitForMail((mail) => mail.subject === 'Denied: deleteFile');
    expect(mail.text).toContain('deleteFile was denied by email:bob@example.com at 2030-01-01T12:05:00.000Z.');
    expect(mail.text).toContain('Reason: not now');
    expect(mail.links).toEqual([]);
    expect(receipt.type === 'email' && mail.headers['in-reply-to']).toBe(receipt.type === 'email' && receipt.messageId);
  });

  it('fails retryably when the SMTP server is down, and not retryably when it refuses the mail', async () => {
    const down = new EmailNotifier({
      transport: nodemailer.createTransport({ host: '127.0.0.1', port: 1, connectionTimeout: 2000 }),
      from: 'tollgate@example.com',
      gatewayUrl,
      secrets: [secret],
    });
    await expect(
      down.requested(noticeFor('down'), { type: 'email', to: ['ana@example.com'] }, 'request'),
    ).rejects.toMatchObject({ type: 'EmailUnavailable', nonRetryable: false });
    expect(classifySmtpError(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }))).toMatchObject({
      type: 'EmailRejected',
      nonRetryable: true,
    });
    expect(classifySmtpError(Object.assign(new Error('try later'), { responseCode: 451 }))).toMatchObject({
      type: 'EmailUnavailable',
      nonRetryable: false,
    });
  });
});

describe('emailNotifierFromEnvironment', () => {
  const complete = {
    TOLLGATE_EMAIL_FROM: 'tollgate@example.com',
    TOLLGATE_GATEWAY_URL: 'https://tollgate.example.com',
    TOLLGATE_EMAIL_LINK_SECRET: `${secret},${'old-'.padEnd(40, 'x')}`,
  };

  it('is undefined when no SMTP server is configured', () => {
    expect(emailNotifierFromEnvironment({ ...complete })).toBeUndefined();
  });

  it('sends through SMTP_URL, or SMTP_HOST and SMTP_PORT', async () => {
    const fromUrl = emailNotifierFromEnvironment({ ...complete, SMTP_URL: smtp.url });
    const fromHost = emailNotifierFromEnvironment({ ...complete, SMTP_HOST: smtp.host, SMTP_PORT: String(smtp.port) });
    for (const [index, configured] of [fromUrl, fromHost].entries()) {
      await configured!.requested(
        noticeFor(`environment-${index}`),
        { type: 'email', to: ['ana@example.com'] },
        'request',
      );
      await smtp.waitForMail((mail) => mail.text.includes(`turn-environment-${index}`));
    }
  });

  it('names what is missing once SMTP is configured, and refuses a short secret without showing it', () => {
    expect(() => emailNotifierFromEnvironment({ SMTP_URL: smtp.url })).toThrow(
      'SMTP is configured, but TOLLGATE_EMAIL_FROM, TOLLGATE_GATEWAY_URL, TOLLGATE_EMAIL_LINK_SECRET is not set.',
    );
    const short = () =>
      emailNotifierFromEnvironment({ ...complete, SMTP_URL: smtp.url, TOLLGATE_EMAIL_LINK_SECRET: 'hunter2' });
    expect(short).toThrow('TOLLGATE_EMAIL_LINK_SECRET #1 is too short');
    expect(short).not.toThrow('hunter2');
  });
});
