import type {
  AgentTurnResult,
  AgentTurnStatus,
  RecordedDecision,
  ToolApprovalAuditEntry,
  ToolApprovalDecision,
} from '../protocol';
import { ApprovalBook } from '../workflows/approvals/approval-book';
import { ApprovalDecisionError } from './approval-decision-error';

/** What a closed turn recorded about its approvals: its result, or the last state it answered a query with. */
export interface ClosedTurnRecord extends Pick<AgentTurnResult, 'audit' | 'pending'> {
  /** How the turn ended, named in the refusal of a decision it never recorded. */
  status: AgentTurnStatus | string;
}

/**
 * Judges decisions that reach a turn after it closed, by the rules the turn applies while it waits (the same
 * {@link ApprovalBook}): who may decide is checked first, then what was recorded. A decision equal to the recorded one
 * is a repeat and is answered with that record; anything else is refused with the cause a waiting turn would give —
 * `unknown-approval`, `forbidden`, `expired`, `conflict` — or `turn-closed` for an approval the turn ended without
 * deciding. The one judgement of a closed turn: the client applies it to a finished turn's result, the gateway to the
 * state it read when the result cannot be had (a failed or cancelled turn).
 *
 * @example
 * const recorded = judgeDecisionsOnClosedTurn(workflowId, [{ approvalId, approved: true, approver: 'ana' }], result);
 * // [{ ...the recorded entry, outcome: 'repeat' }], or throws an ApprovalDecisionError
 */
export function judgeDecisionsOnClosedTurn(
  workflowId: string,
  decisions: readonly ToolApprovalDecision[],
  record: ClosedTurnRecord,
): RecordedDecision[] {
  const book = ApprovalBook.fromResult(workflowId, record);
  const check = book.checkBatch(decisions, 'update');
  if (!check.accepted) {
    throw new ApprovalDecisionError(check.message, check.cause, decisions[0]?.approvalId, workflowId);
  }
  return decisions.map(({ approvalId }) => {
    const recorded: ToolApprovalAuditEntry | undefined = book.decisionOf(approvalId);
    if (!recorded) {
      throw new ApprovalDecisionError(
        `Turn "${workflowId}" ended (${record.status}) without a decision on "${approvalId}"; it takes no more decisions. ` +
          'Continue the conversation in a new turn.',
        'turn-closed',
        approvalId,
        workflowId,
      );
    }
    return { ...recorded, outcome: 'repeat' as const };
  });
}
