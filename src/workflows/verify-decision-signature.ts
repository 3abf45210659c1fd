import { hashes, verify } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import type { ToolApprovalDecision } from '../protocol';
import { decisionSignaturePayload } from '../protocol/decision-signature-payload';

// Pure JavaScript, so it runs inside the workflow sandbox and gives the same answer on replay.
hashes.sha512 = sha512;

/** Public keys a worker trusts to sign decisions, by key id (raw 32-byte Ed25519 keys, base64url). */
export type TrustedDecisionKeys = Readonly<Record<string, string>>;

/**
 * Whether `decision` carries a valid signature by one of `keys`. The one place a decision's
 * signature is checked: the update's validator, the signal handler and the message path all ask here.
 */
export function hasValidDecisionSignature(decision: ToolApprovalDecision, keys: TrustedDecisionKeys): boolean {
  const { signature } = decision;
  if (!signature) return false;
  const publicKey = Object.prototype.hasOwnProperty.call(keys, signature.keyId) ? keys[signature.keyId] : undefined;
  if (publicKey === undefined) return false;
  try {
    const payload = new TextEncoder().encode(decisionSignaturePayload(decision, signature.keyId, signature.signedAt));
    return verify(fromBase64url(signature.value), payload, fromBase64url(publicKey));
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
