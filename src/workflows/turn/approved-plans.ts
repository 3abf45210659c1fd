import type { PendingToolApproval, PlannedToolCall, ToolApprovalAuditEntry, ToolResultOutput } from '../../protocol';
import { approvedPlanText, planCoverProblem, readPlan, type PlanEntry } from '../../protocol/plan-approval';
import type { ApprovalBook } from '../approvals/approval-book';

/** One call of an approved plan, as the turn keeps it (and carries it when it continues as new). */
export interface ApprovedPlanEntry extends PlanEntry {
  /** The plan's approval. */
  planApprovalId: string;
  /** Who approved the plan (every voter of a quorum). */
  approvedBy: string[];
  /** Its place in the plan (1-based) and the plan's length, for the audit's reason. */
  entry: number;
  of: number;
  /** Whether a call has used it: each entry covers one call. */
  used: boolean;
}

/**
 * The plans approved in one turn (turn revision 12): each entry lets one call with its tool and arguments' digest
 * through, once, and only in this turn; a plan is never part of another turn's state. Workflow code only.
 */
export class ApprovedPlans {
  private readonly entries: ApprovedPlanEntry[] = [];

  /**
   * Takes up an approved `proposePlan` call's plan and returns what the model reads: who approved it and which calls
   * it covers.
   */
  adopt(plan: Extract<PlannedToolCall, { kind: 'ask' }>, decision: ToolApprovalAuditEntry): ToolResultOutput {
    const proposal = plan.proposal ?? [];
    const approvedBy = decision.votes?.map((vote) => vote.approver) ?? (decision.approver ? [decision.approver] : []);
    for (const [index, entry] of proposal.entries()) {
      this.entries.push({
        toolName: entry.toolName,
        inputDigest: entry.inputDigest,
        planApprovalId: decision.approvalId,
        approvedBy,
        entry: index + 1,
        of: proposal.length,
        used: false,
      });
    }
    const read = readPlan(plan.call.input);
    return { type: 'text', value: approvedPlanText('calls' in read ? read.calls : [], approvedBy) };
  }

  /**
   * Decides a call that would ask by the first unused plan entry that covers it (same tool and digest, approved by
   * people who may decide it under its own rights), using the entry up; true when it did. A call decided already (by
   * the policy, a grant, a superseded turn) and a `proposePlan` call are left alone.
   */
  cover(book: ApprovalBook, plan: PlannedToolCall, pending: PendingToolApproval, now: Date): boolean {
    if (plan.kind !== 'ask' || plan.proposal || this.entries.length === 0) return false;
    if (book.decisionOf(pending.approvalId)) return false;
    const { rights, inputDigest } = plan.approval;
    const call = { toolName: plan.call.toolName, inputDigest, ...(rights && { rights }) };
    const entry = this.entries.find(
      (candidate) => !candidate.used && planCoverProblem(candidate, call, candidate.approvedBy) === undefined,
    );
    if (!entry) return false;
    entry.used = true;
    book.decideByPlan(
      pending,
      { approvalId: entry.planApprovalId, approvedBy: entry.approvedBy, entry: entry.entry, of: entry.of },
      now,
    );
    return true;
  }

  /** What a turn that continues as new carries. */
  snapshot(): ApprovedPlanEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  /** Takes up the entries an earlier run of this turn carried. */
  restore(entries: readonly ApprovedPlanEntry[]): void {
    this.entries.push(...entries.map((entry) => ({ ...entry })));
  }
}
