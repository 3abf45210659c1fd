import { sign } from 'node:crypto';
import { grantSignaturePayload, type GrantSignature, type SignedGrantFields } from '../../protocol';
import type { DecisionSigningKey } from './sign-decision';

/** Signs a grant with the gateway's decision key, over `grantSignaturePayload` (what the ledger verifies). */
export function signGrant(fields: SignedGrantFields, key: DecisionSigningKey, now: Date = new Date()): GrantSignature {
  const signedAt = now.toISOString();
  const payload = grantSignaturePayload(fields, key.keyId, signedAt);
  return {
    keyId: key.keyId,
    signedAt,
    value: sign(null, Buffer.from(payload, 'utf8'), key.privateKey).toString('base64url'),
  };
}
