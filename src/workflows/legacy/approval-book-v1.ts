import {
  toolApprovalDecisionSchema,
  type DecisionChannel,
  type IgnoredDecisionCause,
  type IgnoredToolApprovalDecision,
  type PendingToolApproval,
  type ToolApprovalAuditEntry,
  type ToolApprovalDecision,
} from '../../protocol';

/** Whether a decision can be applied: new, a harmless repeat, or refused with a cause. */
export type DecisionCheck =
  { accepted: true; repeat: boolean } | { accepted: false; cause: IgnoredDecisionCause; message: string };

/**
 * A turn's approvals: what waits, what was decided, and what was refused. Pure bookkeeping, so the
 * first-decision-wins rules live in one place that the signal, the update and the timer all use.
 */
/** Who may decide one approval. */
export interface ApprovalRights {
  approvers?: string[];
  allowSelfApproval: boolean;
  quorum: number;
  requester?: string;
}

export class ApprovalBook {
  private readonly waiting = new Map<string, PendingToolApproval>();
  private readonly rights = new Map<string, ApprovalRights>();
  private readonly decided = new Map<string, ToolApprovalAuditEntry>();
  private readonly ignoredDecisions: IgnoredToolApprovalDecision[] = [];

  constructor(private readonly workflowId: string) {}

  /** Starts waiting for a decision on `approval`, which only those its `rights` name may decide. */
  request(approval: PendingToolApproval, rights?: ApprovalRights): void {
    const quorum = rights && rights.quorum > 1 ? { quorum: rights.quorum, votes: [] } : {};
    const approvers = rights?.approvers ? { approvers: rights.approvers } : {};
    this.waiting.set(approval.approvalId, { ...approval, ...approvers, ...quorum });
    if (rights) this.rights.set(approval.approvalId, rights);
  }

  /** Approvals still waiting, oldest first. */
  pending(): PendingToolApproval[] {
    return [...this.waiting.values()];
  }

  /** The recorded decision for `approvalId`, if any. */
  decisionOf(approvalId: string): ToolApprovalAuditEntry | undefined {
    return this.decided.get(approvalId);
  }

  /** Every decision so far, in the order they were made. */
  audit(): ToolApprovalAuditEntry[] {
    return [...this.decided.values()];
  }

  /** Decisions that arrived by signal and were not applied. */
  ignored(): IgnoredToolApprovalDecision[] {
    return [...this.ignoredDecisions];
  }

  /** Checks one decision against what is recorded, without changing anything. */
  check(decision: ToolApprovalDecision): DecisionCheck {
    const { approvalId } = decision;
    const recorded = this.decided.get(approvalId);
    if (recorded) {
      if (recorded.decision === 'expired') {
        return {
          accepted: false,
          cause: 'expired',
          message: `Approval "${approvalId}" expired at ${recorded.decidedAt} and the call was denied; a decision after expiry is not applied.`,
        };
      }
      if ((recorded.decision === 'approved') === decision.approved) return { accepted: true, repeat: true };
      return {
        accepted: false,
        cause: 'conflict',
        message:
          `Approval "${approvalId}" was already ${recorded.decision} by ${recorded.approver ?? 'an unnamed approver'} ` +
          `at ${recorded.decidedAt}; the first decision wins and a conflicting one is not applied.`,
      };
    }
    const pending = this.waiting.get(approvalId);
    if (!pending) {
      return {
        accepted: false,
        cause: 'unknown-approval',
        message: `Unknown approvalId "${approvalId}": workflow "${this.workflowId}" has no such approval request.`,
      };
    }
    const forbidden = this.forbidden(decision);
    if (forbidden) return { accepted: false, cause: 'forbidden', message: forbidden };
    const repeatVote = decision.approved && pending.votes?.some((vote) => vote.approver === decision.approver);
    return { accepted: true, repeat: repeatVote === true };
  }

  /** Why `decision.approver` may not make this decision, or undefined when they may. */
  private forbidden(decision: ToolApprovalDecision): string | undefined {
    const rights = this.rights.get(decision.approvalId);
    if (!rights) return undefined;
    const who = decision.approver;
    if (rights.approvers && (who === undefined || !rights.approvers.includes(who))) {
      return who === undefined
        ? `Approval "${decision.approvalId}" may only be decided by named approvers; the decision names none.`
        : `"${who}" may not decide approval "${decision.approvalId}"; it is limited to ${rights.approvers.join(', ')}.`;
    }
    if (decision.approved && !rights.allowSelfApproval && who !== undefined && who === rights.requester) {
      return `"${who}" requested this call and may not approve it; someone else must.`;
    }
    if (rights.quorum > 1 && who === undefined) {
      return `Approval "${decision.approvalId}" needs ${rights.quorum} distinct approvers; the decision names none.`;
    }
    return undefined;
  }

  /** Checks a batch as a whole: every decision must be acceptable and the batch must agree with itself. */
  checkBatch(decisions: readonly ToolApprovalDecision[]): DecisionCheck {
    const seen = new Map<string, boolean>();
    for (const decision of decisions) {
      const earlier = seen.get(decision.approvalId);
      if (earlier !== undefined && earlier !== decision.approved) {
        return {
          accepted: false,
          cause: 'conflict',
          message: `The batch both approves and denies "${decision.approvalId}"; send one decision per approval.`,
        };
      }
      seen.set(decision.approvalId, decision.approved);
      const check = this.check(decision);
      if (!check.accepted) return check;
    }
    return { accepted: true, repeat: false };
  }

  /**
   * Records a decision that {@link check} accepted and returns what is recorded. A repeat returns
   * the first decision unchanged.
   */
  apply(decision: ToolApprovalDecision, via: DecisionChannel, now: Date): ToolApprovalAuditEntry {
    const existing = this.decided.get(decision.approvalId);
    if (existing) return existing;
    const pending = this.waiting.get(decision.approvalId);
    if (!pending) throw new Error(`apply() called for "${decision.approvalId}", which is not pending`);
    if (decision.approved && pending.quorum !== undefined && via !== 'timeout' && via !== 'auto-approve') {
      // N of M: each distinct approver adds a vote; the approval is granted at the quorum.
      const votes = pending.votes ?? [];
      if (!votes.some((vote) => vote.approver === decision.approver)) {
        votes.push({ approver: decision.approver as string, decidedAt: now.toISOString() });
      }
      pending.votes = votes;
      if (votes.length < pending.quorum) {
        return {
          ...pending,
          decision: 'awaiting-quorum',
          ...(decision.approver !== undefined && { approver: decision.approver }),
          decidedAt: now.toISOString(),
          via,
        };
      }
    }
    const entry: ToolApprovalAuditEntry = {
      ...pending,
      decision: decision.approved ? 'approved' : 'denied',
      ...(decision.reason !== undefined && { reason: decision.reason }),
      ...(decision.approver !== undefined && { approver: decision.approver }),
      decidedAt: now.toISOString(),
      via,
    };
    this.waiting.delete(decision.approvalId);
    this.decided.set(decision.approvalId, entry);
    return entry;
  }

  /** A signal's decision: applied when acceptable, otherwise recorded as ignored. Signals cannot reject. */
  receiveSignal(payload: unknown, now: Date): void {
    const parsed = toolApprovalDecisionSchema.safeParse(payload);
    if (!parsed.success) {
      this.ignore(payload, 'invalid', `Invalid toolApprovalResponse signal: ${parsed.error.issues[0]?.message}`, now);
      return;
    }
    const check = this.check(parsed.data);
    if (!check.accepted) {
      this.ignore(payload, check.cause, check.message, now);
      return;
    }
    this.apply(parsed.data, 'signal', now);
  }

  /** Denies a waiting approval because its time ran out. */
  expire(approvalId: string, reason: string, now: Date): ToolApprovalAuditEntry {
    const entry = this.apply({ approvalId, approved: false, reason }, 'timeout', now);
    const expired: ToolApprovalAuditEntry = { ...entry, decision: 'expired' };
    this.decided.set(approvalId, expired);
    return expired;
  }

  /** Records a call that ran without asking because the turn is autonomous. */
  autoApprove(approval: PendingToolApproval, now: Date): ToolApprovalAuditEntry {
    this.request(approval);
    return this.apply(
      { approvalId: approval.approvalId, approved: true, approver: 'auto-approve' },
      'auto-approve',
      now,
    );
  }

  private ignore(received: unknown, cause: IgnoredDecisionCause, message: string, now: Date): void {
    this.ignoredDecisions.push({ received, cause, message, receivedAt: now.toISOString() });
  }
}
