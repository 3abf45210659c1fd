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
  /** base64url SHA-256 of the canonical JSON of the input an editor approved instead (see `editedInputDigestOf`). */
  editedInputDigest?: string;
}

/**
 * What a decision is for, beyond its own fields: the turn, the tool and the arguments of one approval. A signed
 * decision counts only where all of these are the waiting approval's own, so a decision read from one turn is worth
 * nothing in another turn, for another call, or on other arguments.
 */
export interface DecisionBinding {
  /** The workflow id of the turn that applies the decision. */
  workflowId: string;
  /** The approval decided: the turn's own request, or the request a halted turn's messages answer. */
  approvalId: string;
  /** The tool the approval guards. */
  toolName: string;
  /** base64url SHA-256 of the canonical JSON of the call's input (the approval's `inputDigest`). */
  argumentsDigest: string;
}

/**
 * The exact bytes (as text) a decision signature of turns before revision 5 covers. Kept so that their histories
 * replay as they ran; new decisions are signed over {@link boundDecisionSignaturePayload}.
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

/**
 * The exact bytes (as text) a decision signature covers: the binding (turn, approval, tool, arguments), the decision
 * (approved, approver, reason) and when it was signed. One JSON array, so no field can run into another. A decision
 * that approves with edited input (turn revision 7) is signed as `tollgate-decision-v3`, with the edited input's
 * digest last: changing the input after signing breaks the signature, and an unedited decision's bytes are those
 * of `tollgate-decision-v2` as before.
 */
export function boundDecisionSignaturePayload(
  binding: DecisionBinding,
  decision: Pick<SignedDecisionFields, 'approved' | 'approver' | 'reason' | 'editedInputDigest'>,
  keyId: string,
  signedAt: string,
): string {
  const fields = [
    binding.workflowId,
    binding.approvalId,
    binding.toolName,
    binding.argumentsDigest,
    decision.approved,
    decision.approver ?? null,
    decision.reason ?? null,
    signedAt,
    keyId,
  ];
  if (decision.editedInputDigest !== undefined) {
    return JSON.stringify(['tollgate-decision-v3', ...fields, decision.editedInputDigest]);
  }
  return JSON.stringify(['tollgate-decision-v2', ...fields]);
}
