import type { Decision } from '../client';
import type { ToolApprovalAuditEntry } from '../protocol';

/** Anything that decides an approval: Temporal directly, or the approval gateway. */
export interface DecidesApprovals {
  decide(approvalId: string, decision: Decision): Promise<ToolApprovalAuditEntry>;
}

/** `tollgate approve|deny <approvalId>`: decides through the validated update and prints what was recorded. */
export async function decideCommand(
  tollgate: DecidesApprovals,
  options: { approvalId: string; approved: boolean; reason?: string; approver?: string },
): Promise<void> {
  const recorded = await tollgate.decide(options.approvalId, {
    approved: options.approved,
    ...(options.approver !== undefined && { approver: options.approver }),
    ...(options.reason !== undefined && { reason: options.reason }),
  });
  const by = recorded.approver ? ` by ${recorded.approver}` : '';
  console.log(
    `${recorded.toolName} ${recorded.decision}${by} at ${recorded.decidedAt}${recorded.reason ? ` (${recorded.reason})` : ''}.`,
  );
}
