import type { PendingToolApproval } from '../../protocol';

const maxInputLength = 300;

/** Markdown for the Temporal UI's "current details": what the turn waits for and how to decide it. */
export function describePendingApprovals(pending: readonly PendingToolApproval[]): string {
  if (pending.length === 0) return '';
  const lines = pending.map((approval) => {
    let input = JSON.stringify(approval.input) ?? '';
    if (input.length > maxInputLength) input = `${input.slice(0, maxInputLength)}…`;
    const expiry = approval.expiresAt ? ` (expires ${approval.expiresAt})` : '';
    return `- \`${approval.toolName}\` \`${input}\` — approvalId \`${approval.approvalId}\`${expiry}`;
  });
  return [
    `**Waiting for approval** (${pending.length})`,
    ...lines,
    '',
    'Decide with the `toolApprovalResponse` signal or the `respondToToolApprovals` update.',
  ].join('\n');
}
