import { sign, type KeyObject } from 'node:crypto';
import { decisionSignaturePayload, type DecisionSignature, type SignedDecisionFields } from '../protocol';

/** The gateway's decision-signing key: an Ed25519 private key and the id workers know its public key by. */
export interface DecisionSigningKey {
  /** Names the public key in the workers' `TOLLGATE_DECISION_PUBLIC_KEYS`. */
  keyId: string;
  /** The Ed25519 private key. */
  privateKey: KeyObject;
}

/** A decision as the workflow receives it from a gateway: who, what, on what arguments, and the signature. */
export interface SignedDecision extends SignedDecisionFields {
  signature: DecisionSignature;
}

/**
 * Signs one decision with the gateway's key, over `decisionSignaturePayload` (the payload workers verify).
 * Every path that forwards a decision (REST, Slack, email, the chat route) signs through here, after it
 * has resolved the approver to a person. Undefined optional fields are dropped, so what is sent is
 * exactly what was signed.
 *
 * @example
 * const signed = signDecision({ approvalId, approved: true, approver: 'ana', argumentsDigest }, key);
 * await tollgate.decideMany(workflowId, [signed]);
 */
export function signDecision(
  decision: SignedDecisionFields,
  key: DecisionSigningKey,
  now: Date = new Date(),
): SignedDecision {
  const fields: SignedDecisionFields = {
    approvalId: decision.approvalId,
    approved: decision.approved,
    ...(decision.approver !== undefined && { approver: decision.approver }),
    ...(decision.reason !== undefined && { reason: decision.reason }),
    ...(decision.argumentsDigest !== undefined && { argumentsDigest: decision.argumentsDigest }),
  };
  const signedAt = now.toISOString();
  const payload = Buffer.from(decisionSignaturePayload(fields, key.keyId, signedAt), 'utf8');
  const value = sign(null, payload, key.privateKey).toString('base64url');
  return { ...fields, signature: { keyId: key.keyId, signedAt, value } };
}
