import { toolOnPath } from '../../protocol/tool-on-path';
import type { ToolApprovalAuditEntry } from '../../protocol';
import type { ApprovalNotice, ApprovalNoticeKind } from '../notification-types';
import { describeTimeLeft } from '../time-left';
import { bound, escapeHtml, renderArgumentsText } from './email-text';

/** One mail's content: a subject, a plain-text part and the same in HTML. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** The two links of one approver, and when they stop working. */
export interface DecisionLinks {
  approve: string;
  deny: string;
  expiresAt: Date;
  /** The approval in the gateway's inbox, for a fuller view and for editing the arguments. */
  inbox?: string;
}

// Subjects are one line; a tool name is the developer's, but it is still kept short.
const subjectToolLimit = 120;

/**
 * The mail asking one person to decide: the tool, its arguments (shortened, escaped in the HTML), who
 * asked, in which turn, until when, and Approve and Deny links that open a confirmation page.
 *
 * @example
 * const { subject, text, html } = approvalRequestEmail(notice, 'request', { approve, deny, expiresAt });
 */
export function approvalRequestEmail(
  notice: ApprovalNotice,
  kind: ApprovalNoticeKind,
  links: DecisionLinks,
  now: Date = new Date(),
): EmailContent {
  const { approval } = notice;
  const tool = oneLine(toolOnPath(approval), subjectToolLimit);
  const left =
    kind === 'expiry-warning' && approval.expiresAt !== undefined
      ? describeTimeLeft(approval.expiresAt, now)
      : undefined;
  const subject =
    left !== undefined
      ? `Expires in ${left}: approval still needed: ${tool}`
      : kind === 'reminder'
        ? `Reminder: approval still needed: ${tool}`
        : `Approval needed: ${tool}`;
  const argumentsText = renderArgumentsText(approval.input);
  const facts = factsOf(notice, links.expiresAt);
  const text = [
    left !== undefined
      ? `Expires in ${left}: ${approval.toolName} still needs your decision, or it is denied as expired.`
      : kind === 'reminder'
        ? `Still waiting: ${approval.toolName} needs your decision.`
        : `${approval.toolName} needs your decision.`,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    '',
    'Arguments:',
    argumentsText,
    '',
    'Each link opens a page that asks you to confirm; nothing is decided until you do.',
    '',
    'Approve:',
    links.approve,
    '',
    'Deny:',
    links.deny,
    '',
    ...(links.inbox ? ['Open in inbox (to see it in full, or edit the arguments):', links.inbox, ''] : []),
    'The links are for you alone: do not forward this mail.',
  ].join('\n');
  const html = page(`
<p>${escapeHtml(
    left !== undefined
      ? `Expires in ${left}; still waiting for your decision on:`
      : kind === 'reminder'
        ? 'Still waiting for your decision on:'
        : 'Your decision is needed on:',
  )}</p>
<h1 style="font-size:20px">${escapeHtml(approval.toolName)}</h1>
${factsTable(facts)}
<p><strong>Arguments</strong></p>
<pre style="background:#f4f4f4;padding:8px;white-space:pre-wrap;word-break:break-word">${escapeHtml(argumentsText)}</pre>
<p>
  <a href="${escapeHtml(links.approve)}" style="background:#1a7f37;color:#fff;padding:8px 16px;text-decoration:none">Approve…</a>
  &nbsp;
  <a href="${escapeHtml(links.deny)}" style="background:#cf222e;color:#fff;padding:8px 16px;text-decoration:none">Deny…</a>
</p>${links.inbox ? `\n<p><a href="${escapeHtml(links.inbox)}">Open in inbox</a> to see it in full, or edit the arguments.</p>` : ''}
<p style="color:#555">Each link opens a page that asks you to confirm; nothing is decided until you do.
The links are for you alone: do not forward this mail.</p>`);
  return { subject, text, html };
}

/** The short follow-up saying how an approval ended, so nobody follows links that no longer work. */
export function approvalResolvedEmail(notice: ApprovalNotice, decision: ToolApprovalAuditEntry): EmailContent {
  const tool = oneLine(toolOnPath(notice.approval), subjectToolLimit);
  const outcome = outcomeOf(decision);
  const reason = decision.reason ? bound(decision.reason, 1000) : undefined;
  const lines = [
    `${notice.approval.toolName} was ${outcome} at ${decision.decidedAt}.`,
    ...(reason ? [`Reason: ${reason}`] : []),
    `Turn: ${notice.workflowId}`,
    'The links of the earlier mail no longer decide anything.',
  ];
  return {
    subject: `${capitalise(outcome.split(' ')[0] ?? outcome)}: ${tool}`,
    text: lines.join('\n'),
    html: page(lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')),
  };
}

function factsOf(notice: ApprovalNotice, linksExpireAt: Date): Array<[string, string]> {
  const { approval } = notice;
  return [
    ['Tool', approval.toolName],
    ...(notice.requester ? [['Requested by', notice.requester] as [string, string]] : []),
    ['Turn', notice.workflowId],
    ['Approval', approval.approvalId],
    ['Requested at', approval.requestedAt],
    ['Expires', approval.expiresAt ?? 'never'],
    ['Links work until', linksExpireAt.toISOString()],
  ];
}

function factsTable(facts: Array<[string, string]>): string {
  const rows = facts
    .map(
      ([label, value]) =>
        `<tr><th align="left" style="padding-right:12px">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  return `<table>${rows}</table>`;
}

function page(body: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"></head>
<body style="font-family:sans-serif;max-width:640px">${body}
</body></html>`;
}

function outcomeOf(decision: ToolApprovalAuditEntry): string {
  switch (decision.decision) {
    case 'approved':
      return `approved${decision.approver ? ` by ${decision.approver}` : ''}`;
    case 'denied':
      if (decision.via === 'superseded') return 'superseded by a newer message (denied)';
      return `denied${decision.approver ? ` by ${decision.approver}` : ''}`;
    case 'expired':
      return 'expired without a decision';
    case 'awaiting-quorum':
      return 'still waiting for more approvers';
  }
}

function oneLine(text: string, limit: number): string {
  return bound(text.replace(/\s+/g, ' ').trim(), limit).replace(/\n/g, ' ');
}

function capitalise(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
