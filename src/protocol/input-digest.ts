import { sha256 } from '@noble/hashes/sha2.js';
import { canonicalJson } from './canonical-json';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * base64url SHA-256 of the canonical JSON of a tool input, as the AI SDK digests it for its approval signatures: what
 * an approval's `inputDigest` is, and what a decision binds itself to. Pure JavaScript, so the worker, the gateway and
 * workflow code compute the same digest.
 *
 * @example
 * inputDigestOf({ path: 'notes.txt', content: 'hi' }); // 43 base64url characters
 */
export function inputDigestOf(input: unknown): string {
  const bytes = sha256(new TextEncoder().encode(canonicalJson(input)));
  let out = '';
  for (let index = 0; index < bytes.length; index += 3) {
    const chunk = ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    const available = Math.min(3, bytes.length - index);
    for (let sextet = 0; sextet <= available; sextet++) out += alphabet[(chunk >> (18 - 6 * sextet)) & 0x3f];
  }
  return out;
}
