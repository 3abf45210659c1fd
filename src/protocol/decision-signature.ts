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
  /** Ed25519 signature over {@link boundDecisionSignaturePayload} (turns before revision 5: `decisionSignaturePayload`), base64url. */
  value: z.string().min(1).max(200),
});
export type DecisionSignature = z.infer<typeof decisionSignatureSchema>;

export {
  boundDecisionSignaturePayload,
  decisionSignaturePayload,
  type DecisionBinding,
  type SignedDecisionFields,
} from './decision-signature-payload';
