import type { ApprovalNotice, NotificationReceipt, NotificationTarget, ToolApprovalAuditEntry } from '../protocol';

export type { ApprovalNotice, NotificationReceipt, NotificationTarget } from '../protocol';

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
