import { hashes, verify } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import {
  boundDecisionSignaturePayload,
  decisionSignaturePayload,
  type DecisionBinding,
} from './decision-signature-payload';
import { editedInputDigestOf } from './edited-input';
import type { ToolApprovalDecision } from './tool-approval';

// Pure JavaScript, so it runs inside the workflow sandbox and gives the same answer on replay.
hashes.sha512 = sha512;

/** Public keys a worker trusts to sign decisions, by key id (raw 32-byte Ed25519 keys, base64url). */
export type TrustedDecisionKeys = Readonly<Record<string, string>>;

/** How far a signer's clock may be from the turn's: a signature from further back or ahead is refused. */
export const signatureClockSkewMs = 5 * 60_000;

/** Whether a signed decision counts, and if not, why in a sentence a person can act on. */
export type SignatureVerdict = { valid: true } | { valid: false; why: string };

/**
 * Checks a decision's signature against the approval it claims to decide: the signature must be by a trusted key,
 * over this turn's workflow id, this approval, this tool and these arguments, the decision as sent (an edited input by
 * its digest), and a time no
 * earlier than `notBefore` (when the approval was requested, or the turn started, less the clock skew) and no later
 * than `notAfter`. The one place a bound decision signature is checked: the update's validator and handler, the
 * signal handler and the message path all ask here.
 *
 * @example
 * const verdict = verifyBoundDecision(decision, { workflowId, approvalId, toolName, argumentsDigest }, keys, window);
 * if (!verdict.valid) refuse(verdict.why);
 */
export function verifyBoundDecision(
  decision: Pick<ToolApprovalDecision, 'approved' | 'approver' | 'reason' | 'signature' | 'input'>,
  binding: DecisionBinding,
  keys: TrustedDecisionKeys,
  window: { notBefore: Date; notAfter: Date },
): SignatureVerdict {
  const { signature } = decision;
  if (!signature) return { valid: false, why: 'it is not signed' };
  const publicKey = trustedKey(keys, signature.keyId);
  if (publicKey === undefined) {
    return {
      valid: false,
      why: `it is signed with key "${signature.keyId.slice(0, 100)}", which this worker does not trust`,
    };
  }
  // An edited input is signed by its digest (tollgate-decision-v3): input changed after signing does not verify.
  const editedInputDigest = editedInputDigestOf(decision);
  const payload = boundDecisionSignaturePayload(
    binding,
    { ...decision, ...(editedInputDigest !== undefined && { editedInputDigest }) },
    signature.keyId,
    signature.signedAt,
  );
  if (!verifies(signature.value, payload, publicKey)) {
    return {
      valid: false,
      why: 'its signature does not verify: it was made for another turn, approval, tool or arguments, or changed after signing (edited input included)',
    };
  }
  const signedAt = Date.parse(signature.signedAt);
  if (Number.isNaN(signedAt)) return { valid: false, why: 'its signing time is not a date' };
  if (signedAt < window.notBefore.getTime()) {
    return {
      valid: false,
      why: `it was signed at ${signature.signedAt}, before the approval it claims to decide existed`,
    };
  }
  if (signedAt > window.notAfter.getTime()) {
    return { valid: false, why: `it was signed at ${signature.signedAt}, in the future` };
  }
  return { valid: true };
}

/**
 * Whether `decision` carries a valid signature of the form turns before revision 5 used (not bound to a turn, tool or
 * time). Only those turns' histories are judged by it, so that they replay as they ran.
 */
export function hasValidDecisionSignature(decision: ToolApprovalDecision, keys: TrustedDecisionKeys): boolean {
  const { signature } = decision;
  if (!signature) return false;
  const publicKey = trustedKey(keys, signature.keyId);
  if (publicKey === undefined) return false;
  return verifies(signature.value, decisionSignaturePayload(decision, signature.keyId, signature.signedAt), publicKey);
}

/** Whether `value` is a signature over `payload` by the trusted key `keyId` (standing grants verify through here). */
export function signedByTrustedKey(keys: TrustedDecisionKeys, keyId: string, value: string, payload: string): boolean {
  const publicKey = trustedKey(keys, keyId);
  return publicKey !== undefined && verifies(value, payload, publicKey);
}

function trustedKey(keys: TrustedDecisionKeys, keyId: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(keys, keyId) ? keys[keyId] : undefined;
}

function verifies(value: string, payload: string, publicKey: string): boolean {
  try {
    return verify(fromBase64url(value), new TextEncoder().encode(payload), fromBase64url(publicKey));
  } catch {
    // A signature or key of the wrong length or alphabet is simply not valid.
    return false;
  }
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Decodes base64url (or plain base64) without Buffer, which the workflow sandbox lacks. */
function fromBase64url(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const character of clean) {
    const value = alphabet.indexOf(character);
    if (value < 0) throw new TypeError('not base64url');
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return Uint8Array.from(bytes);
}
