import type { PendingToolApproval } from './tool-approval';

/** What a notice is about: one approval of one turn. */
export interface ApprovalNotice {
  workflowId: string;
  approval: PendingToolApproval;
  /** Who started the turn. */
  requester?: string;
  /** Who may decide, when the tool or turn restricts it. */
  approvers?: string[];
}

/** What a sent notice left behind, so it can be updated when the approval is resolved. */
export type NotificationReceipt =
  { type: 'slack'; channel: string; ts: string } | { type: 'email'; to: string[]; messageId: string };

/** Which notice about a waiting approval: the request, a reminder (or escalation), or a warning before it expires. */
export type ApprovalNoticeKind = 'request' | 'reminder' | 'expiry-warning';
