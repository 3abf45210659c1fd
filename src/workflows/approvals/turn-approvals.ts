import { ApplicationFailure, condition } from '@temporalio/workflow';
import type {
  IssuedApproval,
  PendingToolApproval,
  ToolApprovalAuditEntry,
  ToolApprovalResponsePart,
  ToolCallPart,
} from '../../protocol';
import { ApprovalBook, type ApprovalBookSnapshot } from './approval-book';
import { approvalSummary } from '../visibility/describe-turn';
import type { TurnEventLog } from '../visibility/turn-event-log';

/** A turn's approvals as a turn that continues as new carries them. */
export interface TurnApprovalsSnapshot {
  book: ApprovalBookSnapshot;
  issued: IssuedApproval[];
  supersededReason?: string;
}

/**
 * A turn's approvals over time: opening requests the model step issued, waiting for decisions with
 * expiry, and recording what no person decided (autonomous mode, the worker's policy, a superseded
 * turn). The rules for a decision itself live in {@link ApprovalBook}.
 */
export class TurnApprovals {
  readonly book: ApprovalBook;
  private readonly issued = new Map<string, IssuedApproval>();
  private supersededReason: string | undefined;
  /** Set in a run that took over from an earlier one: expiry counts from `expiresAt`, not from now. */
  private continued = false;

  constructor(
    workflowId: string,
    private readonly events: TurnEventLog,
    private readonly currentStep: () => number,
    /** Whether a standing grant may decide a call (turns from revision 10). */
    private readonly takesGrants: () => boolean = () => false,
  ) {
    this.book = new ApprovalBook(workflowId);
  }

  /** Opens the request `approval` guards `call` with; decisions no person makes are recorded at once. */
  open(call: ToolCallPart, approval: IssuedApproval, how: 'ask' | 'auto-approve'): PendingToolApproval {
    const now = new Date();
    this.issued.set(approval.approvalId, approval);
    const pending: PendingToolApproval = {
      approvalId: approval.approvalId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
      requestedAt: now.toISOString(),
      ...(approval.timeoutMs !== undefined && {
        expiresAt: new Date(now.getTime() + approval.timeoutMs).toISOString(),
      }),
      step: this.currentStep(),
      inputDigest: approval.inputDigest,
      ...(approval.signature !== undefined && { signature: approval.signature }),
    };
    if (how === 'auto-approve') {
      this.book.decideWithoutPerson(pending, { approved: true }, 'auto-approve', now);
      return pending;
    }
    this.book.request(pending, approval.rights);
    this.note('approval-requested', pending);
    if (approval.policy) {
      this.book.decideWithoutPerson(pending, approval.policy, 'policy', now);
    } else if (approval.grant && this.takesGrants()) {
      this.book.decideByGrant(pending, approval.grant, now);
    } else if (this.supersededReason !== undefined) {
      this.book.decideWithoutPerson(pending, { approved: false, reason: this.supersededReason }, 'superseded', now);
    }
    return pending;
  }

  /** What a turn that continues as new carries. */
  snapshot(): TurnApprovalsSnapshot {
    return {
      book: this.book.snapshot(),
      issued: [...this.issued.values()],
      ...(this.supersededReason !== undefined && { supersededReason: this.supersededReason }),
    };
  }

  /** Takes up the approvals of an earlier run: a waiting approval keeps the deadline it was given. */
  restore(snapshot: TurnApprovalsSnapshot): void {
    this.book.restore(snapshot.book);
    for (const approval of snapshot.issued) this.issued.set(approval.approvalId, approval);
    this.supersededReason = snapshot.supersededReason;
    this.continued = true;
  }

  /** Whether the turn was superseded by a newer message. */
  superseded(): boolean {
    return this.supersededReason !== undefined;
  }

  /** Denies everything waiting, and anything asked later in this turn: a newer message replaces it. */
  supersede(reason: string): void {
    this.supersededReason ??= reason;
    const now = new Date();
    for (const pending of this.book.pending()) {
      this.book.decideWithoutPerson(pending, { approved: false, reason }, 'superseded', now);
    }
  }

  /**
   * Denies everything waiting because the turn was cancelled (turn revision 17), with `reason`, so its audit says how
   * each call ended; the turn asks nothing after.
   */
  cancel(reason: string): void {
    const now = new Date();
    for (const pending of this.book.pending()) {
      const entry = this.book.decideWithoutPerson(pending, { approved: false, reason }, 'superseded', now);
      this.note('approval-decided', entry, 'denied');
    }
  }

  /** Waits for the decision on `approvalId`, applying its expiry rule. */
  async decision(approvalId: string): Promise<ToolApprovalAuditEntry> {
    const approval = this.issued.get(approvalId);
    const isDecided = () => this.book.decisionOf(approvalId) !== undefined;
    if (approval?.timeoutMs === undefined) {
      await condition(isDecided);
    } else if (!(await condition(isDecided, this.timeLeft(approvalId, approval.timeoutMs), this.timerOf(approvalId)))) {
      const failure = this.expire(approvalId, approval.timeoutMs, approval.onExpire);
      if (failure) throw failure;
    }
    return this.decided(approvalId);
  }

  /**
   * From turn revision 19, the expiry rule alone, for a turn that waits for the decision itself (`StepCalls`): when
   * `approvalId` has an expiry, starts its timer (named for the Temporal UI) and records the approval expired if
   * nobody decides first. `failed` gets the failure of an expiry that fails the turn (`onExpire: 'fail'`), or the
   * wait's own (a cancelled turn). Nothing waits for an approval without an expiry: no promise is made for it.
   */
  expireUnlessDecided(approvalId: string, failed: (error: unknown) => void): void {
    const approval = this.issued.get(approvalId);
    if (approval?.timeoutMs === undefined) return;
    const { timeoutMs, onExpire } = approval;
    const isDecided = () => this.book.decisionOf(approvalId) !== undefined;
    condition(isDecided, this.timeLeft(approvalId, timeoutMs), this.timerOf(approvalId)).then((decided) => {
      const failure = decided ? undefined : this.expire(approvalId, timeoutMs, onExpire);
      if (failure) failed(failure);
    }, failed);
  }

  /**
   * The decision recorded on `approvalId` (a person's, a rule's or its expiry), noted as the turn's
   * `approval-decided` event. Call it once, when the turn takes the decision up.
   */
  decided(approvalId: string): ToolApprovalAuditEntry {
    const decision = this.book.decisionOf(approvalId) as ToolApprovalAuditEntry;
    this.note('approval-decided', decision, detailOf(decision));
    return decision;
  }

  /** Records that nobody decided `approvalId` in time; returns the failure when that fails the turn. */
  private expire(
    approvalId: string,
    timeoutMs: number,
    onExpire: IssuedApproval['onExpire'],
  ): ApplicationFailure | undefined {
    const waited = describeDuration(timeoutMs);
    const entry = this.book.expire(approvalId, `Approval expired: nobody decided within ${waited}.`, new Date());
    if (onExpire !== 'fail') return undefined;
    this.note('approval-decided', entry, 'expired');
    return ApplicationFailure.nonRetryable(
      `Approval "${approvalId}" for ${entry.toolName} expired after ${waited}; the turn fails as configured (onExpire: 'fail').`,
      'ApprovalExpired',
    );
  }

  /** The expiry timer's name on the Temporal UI's timeline: `approval: writeFile notes.txt`. */
  private timerOf(approvalId: string): { summary: string } {
    const waiting = this.book.pending().find((entry) => entry.approvalId === approvalId);
    return { summary: waiting ? approvalSummary(waiting.toolName, waiting.input) : 'approval' };
  }

  /** How long the approval may still wait: all of its time, or in a continued run what is left of it. */
  private timeLeft(approvalId: string, timeoutMs: number): number {
    const expiresAt = this.continued
      ? this.book.pending().find((entry) => entry.approvalId === approvalId)?.expiresAt
      : undefined;
    if (expiresAt === undefined) return timeoutMs;
    // A timer needs a positive duration; a deadline already passed expires at once.
    return Math.max(1, Date.parse(expiresAt) - Date.now());
  }

  /** The recorded decisions on `approvalIds` as tool message parts, in order. */
  responses(approvalIds: readonly string[], providerExecuted = false): ToolApprovalResponsePart[] {
    return approvalIds.flatMap((approvalId): ToolApprovalResponsePart[] => {
      const decision = this.book.decisionOf(approvalId);
      if (!decision) return [];
      return [
        {
          type: 'tool-approval-response',
          approvalId,
          approved: decision.decision === 'approved',
          ...(decision.reason !== undefined && { reason: decision.reason }),
          ...(providerExecuted && { providerExecuted: true }),
        },
      ];
    });
  }

  private note(type: 'approval-requested' | 'approval-decided', approval: PendingToolApproval, detail?: string): void {
    this.events.note(type, this.currentStep(), {
      approvalId: approval.approvalId,
      toolCallId: approval.toolCallId,
      toolName: approval.toolName,
      ...(detail !== undefined && { detail }),
    });
  }
}

function describeDuration(milliseconds: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) if (milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  return `${milliseconds} ms`;
}

/** What an `approval-decided` event says: the outcome, and for an edited approval who changed the input to what. */
function detailOf(decision: ToolApprovalAuditEntry): string {
  if (decision.editedInput === undefined) return decision.decision;
  let input = JSON.stringify(decision.editedInput) ?? 'null';
  if (input.length > 300) input = `${input.slice(0, 300)}…`;
  return `${decision.decision} with input edited by ${decision.editedBy ?? decision.approver ?? 'an approver'}: ${input}`;
}
