import { sha256 } from '@noble/hashes/sha2.js';
import { encodeBase64Url } from './base64url';
import { canonicalJson } from './canonical-json';

/**
 * base64url SHA-256 of the canonical JSON of a tool input, as the AI SDK digests it for its approval signatures: what
 * an approval's `inputDigest` is, and what a decision binds itself to. Pure JavaScript, so the worker, the gateway and
 * workflow code compute the same digest.
 *
 * @example
 * inputDigestOf({ path: 'notes.txt', content: 'hi' }); // 43 base64url characters
 */
export function inputDigestOf(input: unknown): string {
  return encodeBase64Url(sha256(new TextEncoder().encode(canonicalJson(input))));
}
