import type { NotificationTarget, PendingToolApproval, ToolApprovalAuditEntry } from '../protocol';

export type { NotificationTarget } from '../protocol';

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

/** A channel that tells people about approvals: Slack, email. */
export interface ApprovalNotifier {
  /** Which targets this notifier serves. */
  readonly type: NotificationTarget['type'];
  /** Asks the target to decide; `reminder` for a second notice of the same approval. */
  requested(
    notice: ApprovalNotice,
    target: NotificationTarget,
    kind: 'request' | 'reminder',
  ): Promise<NotificationReceipt>;
  /** Shows the outcome where the request was shown (Slack: the message is updated and its buttons removed). */
  resolved(notice: ApprovalNotice, decision: ToolApprovalAuditEntry, receipt: NotificationReceipt): Promise<void>;
}
