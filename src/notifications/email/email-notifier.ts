import type { Transporter } from 'nodemailer';
import type { ToolApprovalAuditEntry } from '../../protocol';
import type {
  ApprovalNotice,
  ApprovalNoticeKind,
  ApprovalNotifier,
  NotificationReceipt,
  NotificationTarget,
} from '../notification-types';
import { approvalRequestEmail, approvalResolvedEmail, type EmailContent } from './approval-email';
import { issueDecisionToken, type EmailDecision } from './decision-token';
import { classifySmtpError } from './email-errors';
import { inboxLinkOf } from '../inbox-link';

/** Where a decision link points: `<gateway URL>/email/decisions/<token>`. */
export const emailDecisionPathPrefix = '/email/decisions/';

/** How long a link works when the approval itself does not expire sooner: seven days. */
export const defaultLinkLifetimeMs = 7 * 24 * 60 * 60 * 1000;

/** What an {@link EmailNotifier} needs. */
export interface EmailNotifierOptions {
  /** A nodemailer transport (SMTP in production). */
  transport: Transporter;
  /** The sender, such as `Tollgate <tollgate@example.com>`. */
  from: string;
  /** The gateway's public URL, which the links point to. */
  gatewayUrl: string;
  /** The link secrets; the first signs, and the gateway accepts them all (rotation). */
  secrets: readonly string[];
  /** How long a link works at most (default 7 days); an approval that expires sooner ends it sooner. */
  linkLifetimeMs?: number;
}

/**
 * Mails approval requests: one mail per address, each with its own Approve and Deny links bound to
 * that address (`email:<address>` is who decides), to the approval and to the decision. A link opens
 * the gateway's confirmation page; only the page's POST decides. When the approval is resolved, each
 * address gets a short follow-up in the same thread saying how it ended. Errors come out classified
 * for Temporal's retry policy (`EmailUnavailable` is retried, `EmailRejected` is not).
 *
 * @example
 * const notifier = new EmailNotifier({
 *   transport: nodemailer.createTransport(process.env.SMTP_URL),
 *   from: 'Tollgate <tollgate@example.com>',
 *   gatewayUrl: 'https://tollgate.example.com',
 *   secrets: [process.env.TOLLGATE_EMAIL_LINK_SECRET!],
 * });
 * const worker = await createTollgateWorker({ connection, taskQueue, tools, model, notifiers: [notifier] });
 */
export class EmailNotifier implements ApprovalNotifier {
  readonly type = 'email' as const;
  private readonly transport: Transporter;
  private readonly from: string;
  private readonly gatewayUrl: string;
  private readonly secret: string;
  private readonly linkLifetimeMs: number;

  constructor(options: EmailNotifierOptions) {
    const [secret] = options.secrets.filter((candidate) => candidate.length > 0);
    if (!secret) throw new TypeError('The email notifier needs a link secret.');
    let url: URL;
    try {
      url = new URL(options.gatewayUrl);
    } catch {
      throw new TypeError(`The gateway URL "${options.gatewayUrl}" is not a URL.`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new TypeError(`The gateway URL "${options.gatewayUrl}" must be http or https.`);
    }
    this.transport = options.transport;
    this.from = options.from;
    this.gatewayUrl = options.gatewayUrl.replace(/\/+$/, '');
    this.secret = secret;
    this.linkLifetimeMs = options.linkLifetimeMs ?? defaultLinkLifetimeMs;
  }

  /**
   * Sends the request (or a reminder) to every address of `target.to`, one mail each. The receipt's
   * `messageId` holds the Message-IDs of those mails in the order of `to`, separated by spaces.
   */
  async requested(
    notice: ApprovalNotice,
    target: NotificationTarget,
    kind: ApprovalNoticeKind,
  ): Promise<NotificationReceipt> {
    if (target.type !== 'email') throw new TypeError(`The email notifier cannot send to a ${target.type} target.`);
    const now = new Date();
    const expiresAt = this.linkExpiry(notice, now);
    const messageIds: string[] = [];
    for (const address of target.to) {
      const approver = `email:${address}`;
      const link = (decision: EmailDecision) =>
        `${this.gatewayUrl}${emailDecisionPathPrefix}${issueDecisionToken({
          workflowId: notice.workflowId,
          approvalId: notice.approval.approvalId,
          approver,
          decision,
          ...(notice.approval.inputDigest !== undefined && { argumentsDigest: notice.approval.inputDigest }),
          expiresAt,
          secret: this.secret,
          now,
        })}`;
      const content = approvalRequestEmail(
        notice,
        kind,
        {
          approve: link('approve'),
          deny: link('deny'),
          expiresAt,
          inbox: inboxLinkOf(this.gatewayUrl, notice.approval.approvalId),
        },
        now,
      );
      messageIds.push(await this.send(address, content));
    }
    return { type: 'email', to: [...target.to], messageId: messageIds.join(' ') };
  }

  /** Sends each address a follow-up, in the thread of its request, saying who decided what (or that it expired). */
  async resolved(
    notice: ApprovalNotice,
    decision: ToolApprovalAuditEntry,
    receipt: NotificationReceipt,
  ): Promise<void> {
    if (receipt.type !== 'email') throw new TypeError(`The email notifier cannot follow up a ${receipt.type} notice.`);
    const content = approvalResolvedEmail(notice, decision);
    const messageIds = receipt.messageId.split(' ');
    for (const [index, address] of receipt.to.entries()) {
      await this.send(address, content, messageIds[index]);
    }
  }

  // A link never outlives its approval, and never works longer than the configured lifetime.
  private linkExpiry(notice: ApprovalNotice, now: Date): Date {
    const longest = now.getTime() + this.linkLifetimeMs;
    const approvalExpiry = notice.approval.expiresAt ? Date.parse(notice.approval.expiresAt) : Number.NaN;
    return new Date(Number.isFinite(approvalExpiry) ? Math.min(approvalExpiry, longest) : longest);
  }

  private async send(to: string, content: EmailContent, inReplyTo?: string): Promise<string> {
    try {
      const info = await this.transport.sendMail({
        from: this.from,
        to,
        subject: content.subject,
        text: content.text,
        html: content.html,
        // Base64 keeps long links whole: quoted-printable would break them across soft line breaks.
        textEncoding: 'base64',
        // Out-of-office replies should not answer an automatic mail (RFC 3834).
        headers: { 'Auto-Submitted': 'auto-generated' },
        ...(inReplyTo && { inReplyTo, references: [inReplyTo] }),
      });
      return String(info.messageId);
    } catch (error) {
      throw classifySmtpError(error);
    }
  }
}
