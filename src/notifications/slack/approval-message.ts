import { toolOnPath } from '../../protocol/tool-on-path';
import type { ChatPostMessageArguments } from '@slack/web-api';
import type { ApprovalNotice, ApprovalNoticeKind } from '../notification-types';
import { allowLabel, type Allow, type ToolApprovalAuditEntry } from '../../protocol';
import { describeTimeLeft } from '../time-left';
import { slackActionIds, slackButtonValue, slackDecisionBlockId } from './slack-action-ids';
import { boundEscaped, escapeSlackText, renderArguments, slackDate, slackSectionTextLimit } from './slack-text';

/** One Block Kit block, as `@slack/web-api` types it. */
export type SlackBlock = Extract<ChatPostMessageArguments, { blocks: unknown }>['blocks'][number];

/** What a message shows: Block Kit blocks, and the plain text notifications and old clients show instead. */
export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

// Room for the "*Arguments*" heading and the code fences around the JSON, under the section limit.
const argumentsLimit = slackSectionTextLimit - 100;

/**
 * The message asking someone to decide: what the tool is, what it was called with, who asked, in which
 * turn, until when, and an Approve and a Deny button that both carry the approvalId; with the operator's default grant
 * terms, an "Approve and allow" button too (the gateway applies its own copy of the terms, never the button's words);
 * with the gateway's inbox link, an "Open in inbox" link (for a fuller view and for edits).
 *
 * @example
 * const { text, blocks } = approvalRequestMessage(notice, 'request');
 * await client.chat.postMessage({ channel: 'C0123', text, blocks });
 */
export function approvalRequestMessage(
  notice: ApprovalNotice,
  kind: ApprovalNoticeKind,
  links: { inbox?: string; allow?: Allow } = {},
  now: Date = new Date(),
): SlackMessage {
  const { approval } = notice;
  const heading = headingOf(notice, kind, now);
  return {
    text: `${heading}: ${escapeSlackText(toolOnPath(approval))}${requesterClause(notice)} (turn ${escapeSlackText(notice.workflowId)})`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: heading } },
      ...describeCall(notice),
      {
        type: 'actions',
        block_id: slackDecisionBlockId,
        elements: [
          {
            type: 'button',
            action_id: slackActionIds.approve,
            style: 'primary',
            text: { type: 'plain_text', text: 'Approve' },
            value: slackButtonValue(approval.approvalId, approval.inputDigest),
          },
          ...(links.allow
            ? [
                {
                  type: 'button' as const,
                  action_id: slackActionIds.approveAndAllow,
                  text: { type: 'plain_text' as const, text: `Approve and allow (${allowLabel(links.allow)})` },
                  value: slackButtonValue(approval.approvalId, approval.inputDigest),
                },
              ]
            : []),
          {
            type: 'button',
            action_id: slackActionIds.deny,
            style: 'danger',
            text: { type: 'plain_text', text: 'Deny' },
            value: slackButtonValue(approval.approvalId, approval.inputDigest),
          },
        ],
      },
      // A link, not a button: a URL button would also post a click to the gateway's interactivity route.
      ...(links.inbox
        ? [
            {
              type: 'context',
              elements: [
                { type: 'mrkdwn', text: `<${links.inbox}|Open in inbox> to see it in full or edit the arguments` },
              ],
            } satisfies SlackBlock,
          ]
        : []),
    ],
  };
}

/**
 * The same message once the approval is resolved: the call as it was shown, then who decided what and
 * when, and no buttons, so nobody clicks on something already decided.
 */
export function approvalResolvedMessage(notice: ApprovalNotice, decision: ToolApprovalAuditEntry): SlackMessage {
  const tool = escapeSlackText(toolOnPath(notice.approval));
  const outcome = outcomeOf(decision);
  const reason = decision.reason ? ` Reason: ${boundEscaped(decision.reason, 1000)}` : '';
  return {
    text: `${tool}: ${outcome.plain}.${reason}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: outcome.heading } },
      ...describeCall(notice),
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `${outcome.emoji} *${outcome.marked}* ${slackDate(decision.decidedAt)}${reason ? `\n${reason.trim()}` : ''}`,
        },
      },
    ],
  };
}

function headingOf(notice: ApprovalNotice, kind: ApprovalNoticeKind, now: Date): string {
  if (kind === 'reminder') return 'Reminder: approval still needed';
  if (kind === 'expiry-warning' && notice.approval.expiresAt !== undefined)
    return `Expires in ${describeTimeLeft(notice.approval.expiresAt, now)}: approval still needed`;
  return 'Approval needed';
}

function describeCall(notice: ApprovalNotice): SlackBlock[] {
  const { approval } = notice;
  const facts = [
    ...(notice.requester !== undefined ? [`Requested by *${escapeSlackText(notice.requester)}*`] : []),
    `Turn \`${escapeSlackText(notice.workflowId)}\``,
    ...(approval.expiresAt !== undefined ? [`Expires ${slackDate(approval.expiresAt)}`] : []),
    ...(notice.approvers?.length ? [`Who may decide: ${notice.approvers.map(escapeSlackText).join(', ')}`] : []),
    ...(approval.quorum !== undefined && approval.quorum > 1 ? [`Approvals needed: ${approval.quorum}`] : []),
  ];
  return [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*Tool:* \`${escapeSlackText(toolOnPath(approval))}\`` },
    },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*Arguments*\n\`\`\`${renderArguments(approval.input, argumentsLimit)}\`\`\`` },
    },
    // A context block takes at most 10 elements; one element of joined facts stays under that.
    { type: 'context', elements: [{ type: 'mrkdwn', text: boundEscapedFacts(facts) }] },
  ];
}

// Each fact is escaped already; only the total length needs bounding (context text allows 3000 characters).
function boundEscapedFacts(facts: string[]): string {
  const joined = facts.join(' · ');
  if (joined.length <= slackSectionTextLimit) return joined;
  // Drop a half-cut escape sequence rather than show a stray `&am`.
  return `${joined.slice(0, slackSectionTextLimit - 1).replace(/&[a-z]*$/, '')}…`;
}

function requesterClause(notice: ApprovalNotice): string {
  return notice.requester !== undefined ? ` requested by ${escapeSlackText(notice.requester)}` : '';
}

function outcomeOf(decision: ToolApprovalAuditEntry): {
  heading: string;
  emoji: string;
  marked: string;
  plain: string;
} {
  const by = decision.approver !== undefined ? ` by ${escapeSlackText(decision.approver)}` : '';
  // A newer message replaced the turn: nobody denied it, and the message says so.
  if (decision.via === 'superseded')
    return { heading: 'Superseded', emoji: ':fast_forward:', marked: 'Superseded', plain: 'superseded (denied)' };
  switch (decision.decision) {
    case 'approved':
      return { heading: 'Approved', emoji: ':white_check_mark:', marked: `Approved${by}`, plain: `approved${by}` };
    case 'denied':
      return { heading: 'Denied', emoji: ':no_entry:', marked: `Denied${by}`, plain: `denied${by}` };
    case 'expired':
      return { heading: 'Expired', emoji: ':hourglass:', marked: 'Expired (denied)', plain: 'expired and was denied' };
    default:
      // Not a final outcome; shown as it is rather than as a decision.
      return {
        heading: 'Waiting for more approvals',
        emoji: ':hourglass_flowing_sand:',
        marked: 'Waiting',
        plain: 'waiting',
      };
  }
}
