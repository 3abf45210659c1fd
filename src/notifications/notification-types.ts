import { z } from 'zod';
import type { PendingToolApproval, ToolApprovalAuditEntry } from '../protocol';

/** Where a notice about an approval goes. */
export const notificationTargetSchema = z.discriminatedUnion('type', [
  /** A Slack channel (id or name) the bot is a member of. */
  z.strictObject({ type: z.literal('slack'), channel: z.string().min(1) }),
  /** Email addresses; each gets its own Approve and Deny links. */
  z.strictObject({ type: z.literal('email'), to: z.array(z.email()).min(1) }),
]);
export type NotificationTarget = z.infer<typeof notificationTargetSchema>;

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
  | { type: 'slack'; channel: string; ts: string }
  | { type: 'email'; to: string[]; messageId: string };

/** A channel that tells people about approvals: Slack, email. */
export interface ApprovalNotifier {
  /** Which targets this notifier serves. */
  readonly type: NotificationTarget['type'];
  /** Asks the target to decide; `reminder` for a second notice of the same approval. */
  requested(notice: ApprovalNotice, target: NotificationTarget, kind: 'request' | 'reminder'): Promise<NotificationReceipt>;
  /** Shows the outcome where the request was shown (Slack: the message is updated and its buttons removed). */
  resolved(notice: ApprovalNotice, decision: ToolApprovalAuditEntry, receipt: NotificationReceipt): Promise<void>;
}
