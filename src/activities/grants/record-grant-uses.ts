import { createHash } from 'node:crypto';
import { auditRecordName, type SharedRecords } from '../../store/shared-records';
import type { GrantClaimer } from '../planning/plan-tool-calls';

/**
 * Writes each call a grant let through into the gateways' shared audit (`GET /v1/audit`), naming the grant and who
 * gave it: the ledger counts the use, the turn records the approval, and this record is what an auditor reading the
 * gateway audit sees. Named by the ledger's time of the claim and the claim id, so a retried model step that claims
 * the same call again writes nothing new. A record that cannot be written leaves the call covered (the turn's own
 * audit names the grant) and is logged.
 */
export function recordingGrantUses(
  claim: GrantClaimer,
  records: SharedRecords,
  warn: (message: string) => void = console.warn,
): GrantClaimer {
  return async (input, about) => {
    const answer = await claim(input, about);
    if (!answer.covered) return answer;
    const at = answer.claimedAt ?? new Date().toISOString();
    const suffix = createHash('sha256').update(input.claimId).digest('hex').slice(0, 12);
    const left = answer.uses !== undefined ? `, use ${answer.used} of ${answer.uses}` : `, use ${answer.used}`;
    const record = {
      at,
      approver: answer.grantedBy,
      identity: `grant:${answer.grantId}`,
      channel: 'grant',
      approvalId: about?.approvalId ?? `grant-use:${input.claimId}`,
      workflowId: input.call.workflowId,
      approved: true,
      reason: `Approved by standing grant ${answer.grantId} from ${answer.grantedBy}${left}.`,
      outcome: 'recorded',
      grant: { action: 'use', grantId: answer.grantId, summary: `${input.call.toolName}${left}` },
    };
    try {
      await records.create(auditRecordName(new Date(at), suffix), JSON.stringify(record));
    } catch (error) {
      warn(
        `The use of standing grant ${answer.grantId} could not be written to the audit: ${(error as Error).message}`,
      );
    }
    return answer;
  };
}
