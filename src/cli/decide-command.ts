import type { Decision } from '../client';
import type { Allow, StandingGrant, ToolApprovalAuditEntry, ToolApprovalDecision } from '../protocol';
import { grantLine } from './grants-command';
import { clip } from './format-turn';

/** Anything that decides an approval: Temporal directly, or the approval gateway. */
export interface DecidesApprovals {
  decide(
    approvalId: string,
    decision: Decision & { allow?: Allow },
  ): Promise<ToolApprovalAuditEntry & { allowed?: StandingGrant }>;
}

/** `tollgate approve|deny <approvalId>`: decides through the validated update and prints what was recorded. */
export async function decideCommand(
  tollgate: DecidesApprovals,
  options: {
    approvalId: string;
    approved: boolean;
    reason?: string;
    approver?: string;
    /** Approve with this input instead of the model's (the approver must be one of the approval's editors). */
    input?: ToolApprovalDecision['input'];
    /** Approve and allow calls like it (through the gateway). */
    allow?: Allow;
  },
): Promise<void> {
  const recorded = await tollgate.decide(options.approvalId, {
    approved: options.approved,
    ...(options.approver !== undefined && { approver: options.approver }),
    ...(options.reason !== undefined && { reason: options.reason }),
    ...(options.input !== undefined && { input: options.input }),
    ...(options.allow !== undefined && { allow: options.allow }),
  });
  // Everything printed went through other people's hands (the model, another approver): neutralised.
  const by = recorded.approver ? ` by ${clip(recorded.approver)}` : '';
  console.log(
    `${clip(recorded.toolName)} ${recorded.decision}${by} at ${clip(recorded.decidedAt)}${recorded.reason ? ` (${clip(recorded.reason)})` : ''}.`,
  );
  if (recorded.allowed) {
    console.log(`Allowed from now on: ${grantLine(recorded.allowed, new Date())}`);
  }
  if (recorded.editedInput !== undefined) {
    console.log(`It runs with the edited input ${clip(JSON.stringify(recorded.editedInput))} instead of the model's.`);
  }
}
