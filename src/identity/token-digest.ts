import { createHash } from 'node:crypto';

/** SHA-256 of a token: every comparison is between equal-length digests, whatever the token lengths. */
export function digestToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
