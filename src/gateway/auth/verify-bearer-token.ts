import { timingSafeEqual } from 'node:crypto';
import { digestToken, type ApproverTokenEntry, type ApproverTokens } from './approver-tokens';

const bearerPattern = /^Bearer +(\S+) *$/i;

/**
 * The grant (person and scopes) of an `Authorization: Bearer <token>` header, or undefined when the header
 * is missing, malformed or names no configured token. The presented token is hashed and compared with
 * every configured digest in constant time, without stopping at a match, so neither the token's length
 * nor which entry came close shows in the timing.
 *
 * @example
 * const tokens = ApproverTokens.fromRecord({ 'a-long-random-token-for-ana': 'ana' });
 * verifyBearerToken('Bearer a-long-random-token-for-ana', tokens)?.identity; // 'ana'
 * verifyBearerToken('Bearer guess', tokens); // undefined
 */
export function verifyBearerToken(
  authorization: string | undefined,
  tokens: ApproverTokens,
): ApproverTokenEntry | undefined {
  const match = bearerPattern.exec(authorization ?? '');
  const presented = digestToken(match?.[1] ?? '');
  let grant: ApproverTokenEntry | undefined;
  for (const entry of tokens.entries) {
    if (timingSafeEqual(presented, entry.digest) && match) grant = entry;
  }
  return grant;
}
