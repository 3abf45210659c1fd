import { canonicalJson } from './canonical-json';
import type { GrantTerms } from './standing-grant';
import { signedByTrustedKey, type TrustedDecisionKeys } from './verify-decision-signature';

/** A gateway's signature on a grant: which key, when, and the Ed25519 value (base64url). */
export interface GrantSignature {
  keyId: string;
  signedAt: string;
  value: string;
}

/** What a grant's signature covers: its id, its terms, its giver and their names, the key and the time. */
export interface SignedGrantFields {
  grantId: string;
  terms: GrantTerms;
  grantedBy: string;
  grantedByNames: string[];
}

/** The text a gateway signs for a grant (`tollgate-grant-v1`), and a worker verifies. */
export function grantSignaturePayload(fields: SignedGrantFields, keyId: string, signedAt: string): string {
  return `tollgate-grant-v1\n${canonicalJson({ ...fields, keyId, signedAt })}`;
}

/**
 * Whether a grant was signed by a key the worker trusts, over exactly what the ledger recorded. A worker that accepts
 * only signed decisions lets only such grants cover calls: access to Temporal alone cannot give a grant.
 */
export function grantSignatureHolds(
  grant: SignedGrantFields & { signature?: GrantSignature },
  keys: TrustedDecisionKeys,
): boolean {
  const { signature } = grant;
  if (!signature) return false;
  const fields = {
    grantId: grant.grantId,
    terms: grant.terms,
    grantedBy: grant.grantedBy,
    grantedByNames: grant.grantedByNames,
  };
  return signedByTrustedKey(
    keys,
    signature.keyId,
    signature.value,
    grantSignaturePayload(fields, signature.keyId, signature.signedAt),
  );
}
