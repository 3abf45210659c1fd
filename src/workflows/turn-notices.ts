import { condition, proxyActivities } from '@temporalio/workflow';
import type { TollgateActivities } from '../activities/activity-types';
import type {
  ActivityLimits,
  ApprovalNoticePlan,
  NotificationTarget,
  PendingToolApproval,
  ToolApprovalAuditEntry,
} from '../protocol';
import type { NotificationReceipt } from '../notifications/notification-types';
import type { TurnEventLog } from './turn-event-log';

/** The notice activity, with the worker owner's limits when given. */
function noticeActivity(limits: ActivityLimits | undefined): TollgateActivities['notifyApproval'] {
  return proxyActivities<TollgateActivities>({
    startToCloseTimeout: limits?.startToCloseMs ?? '30s',
    // Bounded: a channel that is down must not hold the turn's end for long.
    retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: limits?.maximumAttempts ?? 5 },
  }).notifyApproval;
}

interface Sent {
  receipt: NotificationReceipt;
  target: NotificationTarget;
}

/**
 * Tells people about approvals: the request, a reminder or escalation when nobody decides, and the
 * outcome where the request was shown. Notices run beside the wait and never block or fail the
 * turn; a notice that keeps failing becomes a turn event.
 */
export class TurnNotices {
  private readonly outstanding: Array<Promise<unknown>> = [];
  private readonly receipts = new Map<string, Promise<Array<Sent | undefined>>>();

  constructor(
    private readonly workflowId: string,
    private readonly requester: string | undefined,
    private readonly events: TurnEventLog,
    private readonly currentStep: () => number,
    /** The worker owner's limits for notices, once known. */
    private readonly limits: () => ActivityLimits | undefined = () => undefined,
  ) {}

  private get notifyApproval(): TollgateActivities['notifyApproval'] {
    return noticeActivity(this.limits());
  }

  /**
   * Announces `approval`; with `decisionOf`, follows it to its outcome (reminding on the way). A
   * halted turn passes no `decisionOf`: its requests are settled by {@link handBack}.
   */
  announce(
    approval: PendingToolApproval,
    plan: ApprovalNoticePlan,
    decisionOf?: () => ToolApprovalAuditEntry | undefined,
  ): void {
    const notice = {
      workflowId: this.workflowId,
      approval,
      ...(this.requester !== undefined && { requester: this.requester }),
      ...(approval.approvers && { approvers: approval.approvers }),
    };
    const send = (event: 'requested' | 'reminder', target: NotificationTarget) =>
      this.notifyApproval({ event, notice, target }).then(
        (receipt): Sent | undefined => (receipt ? { receipt, target } : undefined),
        (error: Error) => {
          // An activity failure's own message is generic; the channel's reason is its cause.
          const reason = (error.cause as Error | undefined)?.message ?? error.message;
          this.failed(approval.approvalId, `${target.type}: ${reason}`);
          return undefined;
        },
      );
    const sent = Promise.all(plan.notify.map((target) => send('requested', target)));
    this.receipts.set(approval.approvalId, sent);
    this.outstanding.push(sent);
    if (!decisionOf) return;
    const isDecided = () => decisionOf() !== undefined;
    this.outstanding.push(
      (async () => {
        const reminders: Array<Promise<Sent | undefined>> = [];
        if (plan.remindAfterMs !== undefined) {
          if (!(await condition(isDecided, plan.remindAfterMs, { summary: 'approval reminder' }))) {
            reminders.push(...(plan.escalateTo ?? plan.notify).map((target) => send('reminder', target)));
          }
        }
        await condition(isDecided);
        const all = [...(await sent), ...(await Promise.all(reminders))];
        await this.resolve(notice, all, decisionOf() as ToolApprovalAuditEntry);
      })(),
    );
  }

  /**
   * A halted turn hands its open requests back to its caller: where they were shown, they are
   * marked as no longer decidable there, so no button stays live on a finished turn.
   */
  handBack(pending: readonly PendingToolApproval[], now: Date): void {
    for (const approval of pending) {
      const sent = this.receipts.get(approval.approvalId);
      if (!sent) continue;
      const outcome: ToolApprovalAuditEntry = {
        ...approval,
        decision: 'expired',
        reason: 'The turn stopped to hand this request back to its caller, who asks again in its next turn.',
        decidedAt: now.toISOString(),
        via: 'timeout',
      };
      const notice = { workflowId: this.workflowId, approval };
      this.outstanding.push(sent.then((all) => this.resolve(notice, all, outcome)));
    }
  }

  /** Waits for notices still being sent (bounded by their retry policy). */
  async settled(): Promise<void> {
    await Promise.all(this.outstanding);
  }

  private async resolve(
    notice: { workflowId: string; approval: PendingToolApproval },
    sent: Array<Sent | undefined>,
    decision: ToolApprovalAuditEntry,
  ): Promise<void> {
    await Promise.all(
      sent.flatMap((entry) =>
        entry
          ? [
              this.notifyApproval({
                event: 'resolved',
                notice,
                target: entry.target,
                receipt: entry.receipt,
                decision,
              }).catch((error: Error) => this.failed(notice.approval.approvalId, error.message)),
            ]
          : [],
      ),
    );
  }

  private failed(approvalId: string, detail: string): void {
    this.events.note('notification-failed', this.currentStep(), { approvalId, detail });
  }
}
