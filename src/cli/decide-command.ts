import type { TollgateClient } from '../client';

/** `tollgate approve|deny <approvalId>`: decides through the validated update and prints what was recorded. */
export async function decideCommand(
  tollgate: TollgateClient,
  options: { approvalId: string; approved: boolean; reason?: string; approver: string },
): Promise<void> {
  const recorded = await tollgate.decide(options.approvalId, {
    approved: options.approved,
    approver: options.approver,
    ...(options.reason !== undefined && { reason: options.reason }),
  });
  const by = recorded.approver ? ` by ${recorded.approver}` : '';
  console.log(
    `${recorded.toolName} ${recorded.decision}${by} at ${recorded.decidedAt}${recorded.reason ? ` (${recorded.reason})` : ''}.`,
  );
}
