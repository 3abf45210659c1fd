import type {
  AgentTurnResult,
  ApprovalRights,
  DecisionChannel,
  DecisionTrust,
  GrantUse,
  IgnoredDecisionCause,
  IgnoredToolApprovalDecision,
  PendingToolApproval,
  RecordedDecision,
  ToolApprovalAuditEntry,
  ToolApprovalDecision,
} from '../../protocol';
import { summarisePayload } from '../guards/bounded-payload';
import { approverRefusal } from '../../protocol/approver-rights';
import { editedInputDigestOf, editRefusal } from '../../protocol/edited-input';
import {
  hasValidDecisionSignature,
  signatureClockSkewMs,
  verifyBoundDecision,
} from '../../protocol/verify-decision-signature';

/** Whether a decision can be applied: new, a harmless repeat, or refused with a cause. */
export type DecisionCheck =
  | { accepted: true; repeat: boolean }
  | { accepted: false; cause: Exclude<IgnoredDecisionCause, 'replayed'>; message: string };

/** A book as a turn that continues as new carries it: every map in its order. */
export interface ApprovalBookSnapshot {
  waiting: PendingToolApproval[];
  rights: Array<[string, ApprovalRights]>;
  decided: ToolApprovalAuditEntry[];
  ignored: IgnoredToolApprovalDecision[];
  ignoredDropped: number;
}

/** Ignored decisions kept in full; beyond this only a count is kept, so junk cannot grow a turn. */
const maxIgnoredKept = 50;
/** Characters of an ignored payload kept, so a huge signal cannot bloat every query. */
const ignoredPrefixLength = 200;

/**
 * A turn's approvals: what waits, what was decided, and what was refused. Pure bookkeeping, so the
 * decision rules — authenticity, approver rights, first decision wins — live in one place that the
 * signal, the update, the message path and the timer all use, for open and closed turns alike. What a
 * signal or an update says is read beside each other, in `decision-messages.ts`.
 */
export class ApprovalBook {
  private readonly waiting = new Map<string, PendingToolApproval>();
  private readonly rights = new Map<string, ApprovalRights>();
  private readonly decided = new Map<string, ToolApprovalAuditEntry>();
  private readonly ignoredDecisions: IgnoredToolApprovalDecision[] = [];
  private ignoredDropped = 0;
  private trust: DecisionTrust = { requireSigned: false, keys: {} };
  private bindsSignatures = true;
  private acceptsEditedInput = false;
  /** Called after a vote, a decision or an ignored decision is recorded (the turn shows it in the Temporal UI). */
  onChange: () => void = () => undefined;

  /** `now` is the workflow's clock in a turn (deterministic on replay); tests may pass their own. */
  constructor(
    private readonly workflowId: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The book of a finished turn, rebuilt from its result, so a late decision is judged by the same
   * rules as one that arrives while the turn waits.
   */
  static fromResult(workflowId: string, result: Pick<AgentTurnResult, 'audit' | 'pending'>): ApprovalBook {
    const book = new ApprovalBook(workflowId);
    for (const approval of result.pending) book.waiting.set(approval.approvalId, approval);
    for (const entry of result.audit) {
      book.decided.set(entry.approvalId, entry);
      if (entry.approvers || entry.quorum || entry.editors) {
        book.rights.set(entry.approvalId, {
          ...(entry.approvers && { approvers: entry.approvers }),
          ...(entry.editors && { editors: entry.editors }),
          allowSelfApproval: true,
          quorum: entry.quorum ?? 1,
        });
      }
    }
    return book;
  }

  /** Everything the book holds, for a turn that continues as new (trust comes back with the turn's settings). */
  snapshot(): ApprovalBookSnapshot {
    return {
      waiting: this.pending(),
      rights: [...this.rights],
      decided: this.audit(),
      ignored: this.ignored(),
      ignoredDropped: this.ignoredDropped,
    };
  }

  /** Takes up what an earlier run of the turn held; called on an empty book. */
  restore(snapshot: ApprovalBookSnapshot): void {
    for (const approval of snapshot.waiting) this.waiting.set(approval.approvalId, approval);
    for (const [approvalId, rights] of snapshot.rights) this.rights.set(approvalId, rights);
    for (const entry of snapshot.decided) this.decided.set(entry.approvalId, entry);
    this.ignoredDecisions.push(...snapshot.ignored.slice(-maxIgnoredKept));
    this.ignoredDropped = snapshot.ignoredDropped;
  }

  /**
   * Whose signatures make decisions count from now on. `bindsSignatures` (turns from revision 5) requires a signature
   * bound to this turn, this approval, its tool and arguments, and a time; turns planned before check the older form.
   * `acceptsEditedInput` (turns from revision 7) lets a decision carry edited `input`; before, that field is unknown.
   */
  trustDecisionsFrom(
    trust: DecisionTrust,
    options: { bindsSignatures: boolean; acceptsEditedInput?: boolean } = { bindsSignatures: true },
  ): void {
    this.trust = trust;
    this.bindsSignatures = options.bindsSignatures;
    this.acceptsEditedInput = options.acceptsEditedInput === true;
  }

  /** Whether decisions may carry edited `input` (turn revision 7 on). */
  readsEditedInput(): boolean {
    return this.acceptsEditedInput;
  }

  /** Starts waiting for a decision on `approval`, which only those its `rights` name may decide. */
  request(approval: PendingToolApproval, rights?: ApprovalRights): void {
    const quorum = rights && rights.quorum > 1 ? { quorum: rights.quorum, votes: [] } : {};
    const approvers = rights?.approvers ? { approvers: rights.approvers } : {};
    const editors = rights?.editors ? { editors: rights.editors } : {};
    this.waiting.set(approval.approvalId, { ...approval, ...approvers, ...editors, ...quorum });
    if (rights) this.rights.set(approval.approvalId, rights);
  }

  /** Whether the requester may approve `approvalId` themselves (true when its rights do not say). */
  selfApprovalAllowed(approvalId: string): boolean {
    return this.rights.get(approvalId)?.allowSelfApproval ?? true;
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

  /** Decisions that arrived by signal and were not applied (the most recent, bounded). */
  ignored(): IgnoredToolApprovalDecision[] {
    return [...this.ignoredDecisions];
  }

  /** How many ignored decisions were counted but not kept. */
  ignoredNotKept(): number {
    return this.ignoredDropped;
  }

  /**
   * Checks one decision against what is recorded, without changing anything. Who may decide is
   * checked before what was decided, so someone without the right learns nothing and is refused
   * as such even on a decided approval.
   */
  check(decision: ToolApprovalDecision, via: DecisionChannel): DecisionCheck {
    const { approvalId } = decision;
    const known = this.waiting.get(approvalId) ?? this.decided.get(approvalId);
    if (!known) {
      return {
        accepted: false,
        cause: 'unknown-approval',
        message: `Unknown approvalId "${approvalId}": workflow "${this.workflowId}" has no such approval request.`,
      };
    }
    const unauthentic = this.unauthentic(decision, via, known);
    if (unauthentic) return { accepted: false, cause: 'forbidden', message: unauthentic };
    const rights = this.rights.get(approvalId);
    const forbidden =
      approverRefusal(approvalId, rights, decision.approver, decision.approved ? 'approve' : 'deny') ??
      editRefusal(decision, rights);
    if (forbidden) return { accepted: false, cause: 'forbidden', message: forbidden };
    const recorded = this.decided.get(approvalId);
    if (recorded) {
      if (recorded.decision === 'expired') {
        return {
          accepted: false,
          cause: 'expired',
          message: `Approval "${approvalId}" expired at ${recorded.decidedAt} and the call was denied; a decision after expiry is not applied.`,
        };
      }
      const sameInput = editedInputDigestOf({ input: recorded.editedInput }) === editedInputDigestOf(decision);
      if ((recorded.decision === 'approved') === decision.approved && sameInput)
        return { accepted: true, repeat: true };
      if (decision.approved && recorded.decision === 'approved') {
        return {
          accepted: false,
          cause: 'conflict',
          message:
            `Approval "${approvalId}" was already approved by ${recorded.approver ?? 'an unnamed approver'} at ` +
            `${recorded.decidedAt} with ${recorded.editedInput === undefined ? 'the input as asked' : 'other input'}; the first decision wins.`,
        };
      }
      return {
        accepted: false,
        cause: 'conflict',
        message:
          `Approval "${approvalId}" was already ${recorded.decision} by ${recorded.approver ?? 'an unnamed approver'} ` +
          `at ${recorded.decidedAt}; the first decision wins and a conflicting one is not applied.`,
      };
    }
    const repeatVote = decision.approved && known.votes?.some((vote) => vote.approver === decision.approver);
    return { accepted: true, repeat: repeatVote === true };
  }

  /** Why the decision does not speak for a person, or undefined when it does. */
  private unauthentic(
    decision: ToolApprovalDecision,
    via: DecisionChannel,
    approval: PendingToolApproval,
  ): string | undefined {
    if (decision.argumentsDigest !== undefined && approval.inputDigest !== undefined) {
      if (decision.argumentsDigest !== approval.inputDigest) {
        return `The decision on "${decision.approvalId}" was made for other arguments than the call has; it is not applied.`;
      }
    }
    // A decision from messages was checked against its own binding by the activity that read the messages.
    if (!this.trust.requireSigned || via === 'message') return undefined;
    if (!decision.signature) {
      return `This worker accepts only signed decisions; decide "${decision.approvalId}" through the Tollgate gateway.`;
    }
    if (!this.bindsSignatures) {
      return hasValidDecisionSignature(decision, this.trust.keys)
        ? undefined
        : `The signature on the decision for "${decision.approvalId}" does not verify; it is not applied.`;
    }
    const verdict = verifyBoundDecision(
      decision,
      {
        workflowId: this.workflowId,
        approvalId: approval.approvalId,
        toolName: approval.toolName,
        argumentsDigest: approval.inputDigest ?? '',
      },
      this.trust.keys,
      {
        notBefore: new Date(Date.parse(approval.requestedAt) - signatureClockSkewMs),
        notAfter: new Date(this.now().getTime() + signatureClockSkewMs),
      },
    );
    return verdict.valid ? undefined : `The decision on "${decision.approvalId}" is not applied: ${verdict.why}.`;
  }

  /** Checks a batch as a whole: every decision must be acceptable and the batch must agree with itself. */
  checkBatch(decisions: readonly ToolApprovalDecision[], via: DecisionChannel): DecisionCheck {
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
      const check = this.check(decision, via);
      if (!check.accepted) return check;
    }
    return { accepted: true, repeat: false };
  }

  /**
   * Records a decision that {@link check} accepted and returns what is recorded. A repeat returns
   * the first decision unchanged.
   */
  apply(decision: ToolApprovalDecision, via: DecisionChannel, now: Date): RecordedDecision {
    const existing = this.decided.get(decision.approvalId);
    if (existing) return { ...existing, outcome: 'repeat' };
    const pending = this.waiting.get(decision.approvalId);
    if (!pending) throw new Error(`apply() called for "${decision.approvalId}", which is not pending`);
    if (
      decision.approved &&
      pending.quorum !== undefined &&
      (via === 'signal' || via === 'update' || via === 'message')
    ) {
      // N of M: each distinct approver adds a vote; the approval is granted at the quorum.
      const votes = pending.votes ?? [];
      const repeat = votes.some((vote) => vote.approver === decision.approver);
      if (!repeat) votes.push({ approver: decision.approver as string, decidedAt: now.toISOString() });
      pending.votes = votes;
      if (!repeat) this.onChange();
      if (votes.length < pending.quorum) {
        return {
          ...pending,
          decision: 'awaiting-quorum',
          ...(decision.approver !== undefined && { approver: decision.approver }),
          decidedAt: now.toISOString(),
          via,
          outcome: repeat ? 'repeat' : 'vote-recorded',
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
      // The model's input stays in `input`; what the call runs with instead, and who changed it.
      ...(decision.input !== undefined && {
        editedInput: decision.input,
        ...(decision.approver !== undefined && { editedBy: decision.approver }),
      }),
    };
    this.waiting.delete(decision.approvalId);
    this.decided.set(decision.approvalId, entry);
    this.onChange();
    return { ...entry, outcome: 'recorded' };
  }

  /** Denies a waiting approval because its time ran out. */
  expire(approvalId: string, reason: string, now: Date): ToolApprovalAuditEntry {
    const { outcome: _outcome, ...entry } = this.apply({ approvalId, approved: false, reason }, 'timeout', now);
    const expired: ToolApprovalAuditEntry = { ...entry, decision: 'expired' };
    this.decided.set(approvalId, expired);
    this.onChange();
    return expired;
  }

  /** Records a decision made without a person: autonomous mode, the worker's policy, a superseded turn. */
  decideWithoutPerson(
    approval: PendingToolApproval,
    decision: { approved: boolean; reason?: string },
    via: 'auto-approve' | 'policy' | 'superseded',
    now: Date,
  ): ToolApprovalAuditEntry {
    if (!this.waiting.has(approval.approvalId) && !this.decided.has(approval.approvalId)) this.request(approval);
    const { outcome: _outcome, ...entry } = this.apply(
      {
        approvalId: approval.approvalId,
        approved: decision.approved,
        approver: via,
        ...(decision.reason !== undefined && { reason: decision.reason }),
      },
      via,
      now,
    );
    return entry;
  }

  /**
   * Records the approval of a call a person's standing grant covered: the grant's giver is the approver, the reason
   * names the grant and where its uses stand, and the entry carries the grant for every audit that reads it.
   */
  decideByGrant(approval: PendingToolApproval, grant: GrantUse, now: Date): ToolApprovalAuditEntry {
    const { outcome: _outcome, ...entry } = this.apply(
      { approvalId: approval.approvalId, approved: true, approver: grant.grantedBy, reason: grantReason(grant) },
      'grant',
      now,
    );
    const recorded: ToolApprovalAuditEntry = {
      ...entry,
      grant: { grantId: grant.grantId, grantedBy: grant.grantedBy },
    };
    this.decided.set(approval.approvalId, recorded);
    return recorded;
  }

  /**
   * Records the approval of a call an approved plan covered (turn revision 12): the plan's approvers are the
   * approvers, the reason names the plan's approval, and the entry carries it for every audit that reads it.
   */
  decideByPlan(
    approval: PendingToolApproval,
    plan: { approvalId: string; approvedBy: string[]; entry: number; of: number },
    now: Date,
  ): ToolApprovalAuditEntry {
    const who = plan.approvedBy.join(', ') || 'an approver';
    const { outcome: _outcome, ...entry } = this.apply(
      {
        approvalId: approval.approvalId,
        approved: true,
        ...(plan.approvedBy.length > 0 && { approver: plan.approvedBy.join(', ') }),
        reason: `Approved by plan ${plan.approvalId} (approved by ${who}), call ${plan.entry} of ${plan.of}.`,
      },
      'plan',
      now,
    );
    const recorded: ToolApprovalAuditEntry = {
      ...entry,
      plan: { approvalId: plan.approvalId, approvedBy: plan.approvedBy },
    };
    this.decided.set(approval.approvalId, recorded);
    return recorded;
  }

  /**
   * Records a signal the turn did not act on (a decision or another message a sender wrote), in a size-capped
   * summary; beyond the most recent few only a count is kept.
   */
  ignore(received: unknown, cause: IgnoredDecisionCause, message: string, now: Date): void {
    if (this.ignoredDecisions.length >= maxIgnoredKept) {
      this.ignoredDecisions.shift();
      this.ignoredDropped += 1;
    }
    this.ignoredDecisions.push({ received: summarise(received), cause, message, receivedAt: now.toISOString() });
    this.onChange();
  }
}

/** What the model and the audit read about a call a grant let through. */
export function grantReason(grant: GrantUse): string {
  const left = grant.uses !== undefined ? `, use ${grant.used} of ${grant.uses}` : '';
  const until = grant.expiresAt !== undefined ? `, until ${grant.expiresAt}` : '';
  return `Approved by standing grant ${grant.grantId} from ${grant.grantedBy}${left}${until}.`;
}

/**
 * What is kept of an ignored payload: a small one whole, of any other the start of its JSON text, written
 * in bounded work (never JSON.stringify on what a sender wrote: a deep enough value overflows the stack).
 */
function summarise(received: unknown): IgnoredToolApprovalDecision['received'] {
  const summary = summarisePayload(received, ignoredPrefixLength);
  return summary.complete ? received : { truncated: true, prefix: summary.prefix };
}
