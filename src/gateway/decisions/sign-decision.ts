import { sign, type KeyObject } from 'node:crypto';
import {
  boundDecisionSignaturePayload,
  editedInputDigestOf,
  type DecisionBinding,
  type DecisionSignature,
  type SignedDecisionFields,
  type ToolApprovalDecision,
} from '../../protocol';

/** The gateway's decision-signing key: an Ed25519 private key and the id workers know its public key by. */
export interface DecisionSigningKey {
  /** Names the public key in the workers' `TOLLGATE_DECISION_PUBLIC_KEYS`. */
  keyId: string;
  /** The Ed25519 private key. */
  privateKey: KeyObject;
}

/** A decision as the workflow receives it from a gateway: who, what, on what arguments, and the signature. */
export interface SignedDecision extends Omit<SignedDecisionFields, 'editedInputDigest'> {
  argumentsDigest: string;
  signature: DecisionSignature;
  /** The input an editor approved instead of the model's; the signature binds its digest. */
  input?: ToolApprovalDecision['input'];
}

/**
 * Signs one decision with the gateway's key, over `boundDecisionSignaturePayload` (what workers verify): the decision
 * and its binding — the turn that applies it, the approval, the tool and the arguments' digest — and the time. Every
 * path that forwards a decision (REST, Slack, email, chat, a halted turn's messages) signs through here, after it has
 * resolved the approver to a person. Undefined optional fields are dropped, so what is sent is exactly what was signed.
 *
 * @example
 * const signed = signDecision({ approvalId, approved: true, approver: 'ana' }, { workflowId, toolName, argumentsDigest }, key);
 * await tollgate.decideMany(workflowId, [signed]);
 */
export function signDecision(
  decision: Omit<SignedDecisionFields, 'argumentsDigest' | 'editedInputDigest'> & {
    input?: ToolApprovalDecision['input'];
  },
  binding: Omit<DecisionBinding, 'approvalId'>,
  key: DecisionSigningKey,
  now: Date = new Date(),
): SignedDecision {
  const fields = {
    approvalId: decision.approvalId,
    approved: decision.approved,
    ...(decision.approver !== undefined && { approver: decision.approver }),
    ...(decision.reason !== undefined && { reason: decision.reason }),
    argumentsDigest: binding.argumentsDigest,
  };
  const signedAt = now.toISOString();
  const editedInputDigest = editedInputDigestOf(decision);
  const payload = boundDecisionSignaturePayload(
    { ...binding, approvalId: decision.approvalId },
    { ...fields, ...(editedInputDigest !== undefined && { editedInputDigest }) },
    key.keyId,
    signedAt,
  );
  const value = sign(null, Buffer.from(payload, 'utf8'), key.privateKey).toString('base64url');
  return {
    ...fields,
    ...(decision.input !== undefined && { input: decision.input }),
    signature: { keyId: key.keyId, signedAt, value },
  };
}
