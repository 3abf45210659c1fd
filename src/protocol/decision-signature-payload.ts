// Without zod on purpose: the workflow sandbox verifies signatures with it, and every module a
// workflow imports is evaluated again in each workflow's own module scope.

/** What a signature covers: everything that makes the decision what it is. */
export interface SignedDecisionFields {
  approvalId: string;
  approved: boolean;
  approver?: string;
  reason?: string;
  /** Digest of the tool name and arguments the person was shown (see `toolCallDigest`). */
  argumentsDigest?: string;
}

/**
 * The exact bytes (as text) a decision signature covers. One JSON array, so no field can run into
 * another; the approvalId names the turn, so a signature cannot be replayed on another turn.
 */
export function decisionSignaturePayload(decision: SignedDecisionFields, keyId: string, signedAt: string): string {
  return JSON.stringify([
    'tollgate-decision-v1',
    decision.approvalId,
    decision.approved,
    decision.approver ?? null,
    decision.reason ?? null,
    decision.argumentsDigest ?? null,
    signedAt,
    keyId,
  ]);
}
