import type {
  ApprovalNotice,
  ApprovalNoticeKind,
  NotificationReceipt,
  NotificationTarget,
  ToolApprovalAuditEntry,
} from '../protocol';

export type { ApprovalNotice, ApprovalNoticeKind, NotificationReceipt, NotificationTarget } from '../protocol';

/** A channel that tells people about approvals: Slack, email. */
export interface ApprovalNotifier {
  /** Which targets this notifier serves. */
  readonly type: NotificationTarget['type'];
  /**
   * Asks the target to decide; `reminder` for a second notice of the same approval, `expiry-warning` for one shortly
   * before it expires ("expires in 1 h"). Each is updated by {@link resolved} once the approval is closed.
   */
  requested(notice: ApprovalNotice, target: NotificationTarget, kind: ApprovalNoticeKind): Promise<NotificationReceipt>;
  /** Shows the outcome where the request was shown (Slack: the message is updated and its buttons removed). */
  resolved(notice: ApprovalNotice, decision: ToolApprovalAuditEntry, receipt: NotificationReceipt): Promise<void>;
}
