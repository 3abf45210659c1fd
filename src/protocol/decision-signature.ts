import { z } from 'zod';

/**
 * A gateway's signature on one decision. The gateway signs with an Ed25519 private key only it
 * holds; workers that require signed decisions verify with the public key, so access to Temporal
 * alone cannot speak for an approver.
 */
export const decisionSignatureSchema = z.strictObject({
  /** Which of the worker's trusted public keys verifies this signature. */
  keyId: z.string().min(1).max(100),
  /** When the gateway signed (ISO 8601). */
  signedAt: z.string().min(1).max(40),
  /** Ed25519 signature over {@link decisionSignaturePayload}, base64url. */
  value: z.string().min(1).max(200),
});
export type DecisionSignature = z.infer<typeof decisionSignatureSchema>;

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
