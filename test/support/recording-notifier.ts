import type { ApprovalNotifier, NotificationReceipt } from '../../src/notifications/notification-types';
import type { NotificationTarget, ToolApprovalAuditEntry } from '../../src/protocol';

/** A channel that keeps what it was asked to show, as a Slack workspace would. */
export class RecordingNotifier implements ApprovalNotifier {
  readonly type = 'slack' as const;
  readonly sent: Array<{ kind: string; approvalId: string; channel: string }> = [];
  readonly resolutions: Array<{ approvalId: string; decision: string; ts: string }> = [];
  failuresLeft = 0;

  async requested(
    notice: { approval: { approvalId: string } },
    target: NotificationTarget,
    kind: 'request' | 'reminder' | 'expiry-warning',
  ) {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw new Error('slack is down');
    }
    const channel = target.type === 'slack' ? target.channel : '';
    this.sent.push({ kind, approvalId: notice.approval.approvalId, channel });
    return { type: 'slack' as const, channel, ts: `${this.sent.length}.000` };
  }

  async resolved(
    notice: { approval: { approvalId: string } },
    decision: ToolApprovalAuditEntry,
    receipt: NotificationReceipt,
  ) {
    this.resolutions.push({
      approvalId: notice.approval.approvalId,
      decision: decision.decision,
      ts: receipt.type === 'slack' ? receipt.ts : '',
    });
  }
}
