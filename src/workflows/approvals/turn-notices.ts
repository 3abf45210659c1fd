import { condition, proxyActivities } from '@temporalio/workflow';
import type { TollgateActivities } from '../../activities/activity-types';
import type {
  ActivityLimits,
  ApprovalNoticePlan,
  NotificationTarget,
  PendingToolApproval,
  ToolApprovalAuditEntry,
} from '../../protocol';
import type { NotificationReceipt } from '../../notifications/notification-types';
import { turnRevisions } from '../../protocol/turn-plan';
import { expiryWarningSummary, reminderSummary } from '../visibility/describe-turn';
import type { TurnEventLog } from '../visibility/turn-event-log';

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

/** An approval's notices that still wait for its outcome, as a turn that continues as new carries them. */
export interface FollowedNoticeSnapshot {
  approval: PendingToolApproval;
  plan: ApprovalNoticePlan;
  /** Where the request was shown (null where sending failed). */
  sent: Array<Sent | null>;
  /** Where a reminder was shown, once sent. */
  reminders?: Array<Sent | null>;
  /** When the reminder is due (epoch milliseconds), while it still is. */
  remindAt?: number;
  /** Where the warning before expiry was shown, once sent (turns from revision 8). */
  warnings?: Array<Sent | null>;
  /** When the warning before expiry is due (epoch milliseconds), while it still is. */
  warnAt?: number;
}

/** One approval followed to its outcome: what was sent, what is due, what is still being sent. */
interface Followed {
  approval: PendingToolApproval;
  plan: ApprovalNoticePlan;
  decisionOf: () => ToolApprovalAuditEntry | undefined;
  sent?: Array<Sent | undefined>;
  reminders?: Array<Sent | undefined>;
  remindAt?: number;
  warnings?: Array<Sent | undefined>;
  warnAt?: number;
  inFlight: number;
  resolved: boolean;
}

const noop = () => undefined;

/**
 * Tells people about approvals: the request, a reminder or escalation when nobody decides, and the
 * outcome where the request was shown. Notices run beside the wait and never block or fail the
 * turn; a notice that keeps failing becomes a turn event.
 */
export class TurnNotices {
  private readonly outstanding: Array<Promise<unknown>> = [];
  private readonly receipts = new Map<string, Promise<Array<Sent | undefined>>>();
  private readonly followed = new Map<string, Followed>();

  constructor(
    private readonly workflowId: string,
    private readonly requester: string | undefined,
    private readonly events: TurnEventLog,
    private readonly currentStep: () => number,
    /** The worker owner's limits for notices, once known. */
    private readonly limits: () => ActivityLimits | undefined = () => undefined,
    /** The turn's revision, once known: warnings before expiry come from revision 8. */
    private readonly revision: () => number = () => 1,
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
    const warnAt = this.warningDue(approval, plan);
    const followed: Followed = {
      approval,
      plan,
      decisionOf: decisionOf ?? noop,
      ...(plan.remindAfterMs !== undefined && { remindAt: Date.now() + plan.remindAfterMs }),
      ...(warnAt !== undefined && { warnAt }),
      inFlight: 0,
      resolved: false,
    };
    const send = this.sender(followed);
    const sent = Promise.all(plan.notify.map((target) => send('requested', target)));
    // Side branches that only take notes, so that commands keep the order histories already hold.
    sent.then((values) => (followed.sent = values), noop);
    this.receipts.set(approval.approvalId, sent);
    this.outstanding.push(sent);
    if (!decisionOf) return;
    this.followed.set(approval.approvalId, followed);
    // Shared with the warning: every notice still shown when the approval closes is updated then.
    const later: Array<Promise<Sent | undefined>> = [];
    this.outstanding.push(this.follow(followed, sent, later, plan.remindAfterMs));
    if (followed.warnAt !== undefined) this.outstanding.push(this.warn(followed, later));
  }

  /**
   * When to warn about `approval` before it expires (epoch milliseconds): for turns from revision 8 whose plan asks
   * for it, and only while that moment is still ahead.
   */
  private warningDue(approval: PendingToolApproval, plan: ApprovalNoticePlan): number | undefined {
    if (plan.warnBeforeExpiryMs === undefined || approval.expiresAt === undefined) return undefined;
    if (this.revision() < turnRevisions.expiryWarnings) return undefined;
    const warnAt = Date.parse(approval.expiresAt) - plan.warnBeforeExpiryMs;
    return warnAt > Date.now() ? warnAt : undefined;
  }

  /** Warns the request's targets that the approval expires soon, unless it is decided first. */
  private async warn(followed: Followed, later: Array<Promise<Sent | undefined>>): Promise<void> {
    const { warnAt } = followed;
    if (warnAt === undefined) return;
    const isDecided = () => followed.decisionOf() !== undefined;
    // A timer needs a positive duration; a carried warning already due is sent at once.
    if (
      await condition(isDecided, Math.max(1, warnAt - Date.now()), {
        summary: expiryWarningSummary(followed.approval),
      })
    )
      return;
    delete followed.warnAt;
    // Decided in the same moment the timer fired: nothing to warn about.
    if (isDecided()) return;
    const send = this.sender(followed);
    const due = followed.plan.notify.map((target) => send('expiry-warning', target));
    later.push(...due);
    Promise.all(due).then((values) => (followed.warnings = values), noop);
  }

  /**
   * Takes up, in a run that continued as new, an approval's notices that waited for its outcome: the reminder
   * keeps its due time, and the outcome is shown where the request and the reminder were.
   */
  resume(carried: FollowedNoticeSnapshot, decisionOf: () => ToolApprovalAuditEntry | undefined): void {
    const sent = carried.sent.map((entry) => entry ?? undefined);
    const reminders = carried.reminders?.map((entry) => entry ?? undefined);
    const warnings = carried.warnings?.map((entry) => entry ?? undefined);
    const followed: Followed = {
      approval: carried.approval,
      plan: carried.plan,
      decisionOf,
      sent,
      ...(reminders && { reminders }),
      ...(carried.remindAt !== undefined && { remindAt: carried.remindAt }),
      ...(warnings && { warnings }),
      ...(carried.warnAt !== undefined && { warnAt: carried.warnAt }),
      inFlight: 0,
      resolved: false,
    };
    this.receipts.set(carried.approval.approvalId, Promise.resolve(sent));
    this.followed.set(carried.approval.approvalId, followed);
    const remindAfterMs = carried.remindAt === undefined ? undefined : Math.max(1, carried.remindAt - Date.now());
    const later = [...(reminders ?? []), ...(warnings ?? [])].map((entry) => Promise.resolve(entry));
    this.outstanding.push(this.follow(followed, Promise.resolve(sent), later, remindAfterMs));
    if (followed.warnAt !== undefined) this.outstanding.push(this.warn(followed, later));
  }

  /**
   * True when no notice is being sent and none is owed for a decision already made: the notices' state is all
   * in {@link snapshot}, and the turn may continue as new.
   */
  quiet(): boolean {
    for (const followed of this.followed.values()) {
      if (followed.resolved) continue;
      if (followed.inFlight > 0 || followed.sent === undefined || followed.decisionOf() !== undefined) return false;
    }
    return true;
  }

  /** What a turn that continues as new carries: the approvals still followed (call when {@link quiet}). */
  snapshot(): FollowedNoticeSnapshot[] {
    return [...this.followed.values()].flatMap((followed): FollowedNoticeSnapshot[] =>
      followed.resolved
        ? []
        : [
            {
              approval: followed.approval,
              plan: followed.plan,
              sent: (followed.sent ?? []).map((entry) => entry ?? null),
              ...(followed.reminders && { reminders: followed.reminders.map((entry) => entry ?? null) }),
              ...(followed.remindAt !== undefined && { remindAt: followed.remindAt }),
              ...(followed.warnings && { warnings: followed.warnings.map((entry) => entry ?? null) }),
              ...(followed.warnAt !== undefined && { warnAt: followed.warnAt }),
            },
          ],
    );
  }

  /** Sends one notice for `followed`, counting it while it is in flight; a failure becomes a turn event. */
  private sender(followed: Followed) {
    const { approval } = followed;
    const notice = this.noticeOf(approval);
    return (
      event: 'requested' | 'reminder' | 'expiry-warning',
      target: NotificationTarget,
    ): Promise<Sent | undefined> => {
      followed.inFlight += 1;
      const sending = this.notifyApproval({ event, notice, target }).then(
        (receipt): Sent | undefined => (receipt ? { receipt, target } : undefined),
        (error: Error) => {
          // An activity failure's own message is generic; the channel's reason is its cause.
          const reason = (error.cause as Error | undefined)?.message ?? error.message;
          this.failed(approval.approvalId, `${target.type}: ${reason}`);
          return undefined;
        },
      );
      sending.then(() => (followed.inFlight -= 1), noop);
      return sending;
    };
  }

  /** Reminds when nobody decides in time, then shows the outcome wherever the approval was shown. */
  private async follow(
    followed: Followed,
    sent: Promise<Array<Sent | undefined>>,
    reminders: Array<Promise<Sent | undefined>>,
    remindAfterMs: number | undefined,
  ): Promise<void> {
    const { plan, decisionOf } = followed;
    const send = this.sender(followed);
    const isDecided = () => decisionOf() !== undefined;
    if (remindAfterMs !== undefined) {
      if (!(await condition(isDecided, remindAfterMs, { summary: reminderSummary(followed.approval) }))) {
        delete followed.remindAt;
        const due = (plan.escalateTo ?? plan.notify).map((target) => send('reminder', target));
        reminders.push(...due);
        Promise.all(due).then((values) => (followed.reminders = values), noop);
      }
    }
    await condition(isDecided);
    const all = [...(await sent), ...(await Promise.all(reminders))];
    followed.inFlight += 1;
    try {
      await this.resolve(this.noticeOf(followed.approval), all, decisionOf() as ToolApprovalAuditEntry);
    } finally {
      followed.inFlight -= 1;
      followed.resolved = true;
    }
  }

  private noticeOf(approval: PendingToolApproval) {
    return {
      workflowId: this.workflowId,
      approval,
      ...(this.requester !== undefined && { requester: this.requester }),
      ...(approval.approvers && { approvers: approval.approvers }),
    };
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

  /** Whether the turn has sent or followed any notice. */
  any(): boolean {
    return this.outstanding.length > 0;
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
