import { readFileSync } from 'node:fs';
import {
  defaultShortcutScopes,
  digestToken,
  minimumTokenLength,
  type TokenGrant,
  type TokenScope,
} from '../../identity';

export { digestToken, minimumTokenLength };

/** One configured token, kept only as its digest, with the person it speaks for and its scopes. */
export type ApproverTokenEntry = TokenGrant;

/**
 * The bearer tokens the gateway accepts, the person each one stands for and what it may do. Only digests
 * are kept, so a heap dump or a log of this object does not leak a token.
 *
 * @example
 * const tokens = ApproverTokens.fromRecord({ 'ana-0123456789abcdef': 'ana', 'ops-bot-fedcba9876543210': 'ops-bot' });
 */
export class ApproverTokens {
  private constructor(readonly entries: readonly ApproverTokenEntry[]) {}

  /** Tokens from an access file's grants (see `readAccessFile`). */
  static fromGrants(grants: readonly TokenGrant[]): ApproverTokens {
    if (grants.length === 0) throw new TypeError('No approver token is configured.');
    return new ApproverTokens(grants);
  }

  /**
   * The shortcut form `{ "<token>": "<person>" }`, each token with `scopes` (by default
   * {@link defaultShortcutScopes}: start turns, read its own, decide). Throws a TypeError naming the entry
   * by its position, never by its token, so the message is safe to log.
   */
  static fromRecord(record: unknown, scopes: readonly TokenScope[] = defaultShortcutScopes): ApproverTokens {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new TypeError('Approver tokens must be a JSON object of token to approver identity.');
    }
    const entries = Object.entries(record).map(([token, identity], index): ApproverTokenEntry => {
      const where = `approver token #${index + 1}`;
      if (token.length < minimumTokenLength || /\s/.test(token)) {
        throw new TypeError(`Invalid ${where}: a token needs ${minimumTokenLength}+ characters and no whitespace.`);
      }
      if (typeof identity !== 'string' || identity.trim().length === 0 || identity.length > 200) {
        throw new TypeError(`Invalid ${where}: its approver identity must be a non-empty string of at most 200.`);
      }
      return { digest: digestToken(token), identity: identity.trim(), scopes };
    });
    if (entries.length === 0) throw new TypeError('No approver token is configured.');
    return new ApproverTokens(entries);
  }

  /** How many tokens are configured. */
  get size(): number {
    return this.entries.length;
  }

  /** Whether one of `person`'s tokens holds `scope` (for rights asked without a token: the inbox's sessions). */
  holds(person: string, scope: TokenScope): boolean {
    return this.entries.some((entry) => entry.identity === person && entry.scopes.includes(scope));
  }
}

/**
 * The shortcut: tokens from `TOLLGATE_GATEWAY_TOKENS` (a JSON object) or the JSON file named by
 * `TOLLGATE_GATEWAY_TOKENS_FILE`, each with the default scopes. Undefined when neither is set.
 */
export function approverTokensFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): ApproverTokens | undefined {
  const inline = environment.TOLLGATE_GATEWAY_TOKENS;
  const file = environment.TOLLGATE_GATEWAY_TOKENS_FILE;
  if (inline && file) {
    throw new TypeError('Set TOLLGATE_GATEWAY_TOKENS or TOLLGATE_GATEWAY_TOKENS_FILE, not both.');
  }
  if (!inline && !file) return undefined;
  const source = inline ? 'TOLLGATE_GATEWAY_TOKENS' : `TOLLGATE_GATEWAY_TOKENS_FILE (${file})`;
  let record: unknown;
  try {
    record = JSON.parse(inline ?? readFileSync(file as string, 'utf8'));
  } catch (error) {
    // A JSON error can quote the text, which is secret: name the source and the error code only.
    const reason = (error as NodeJS.ErrnoException).code ?? 'not valid JSON';
    throw new TypeError(`Cannot read approver tokens from ${source}: ${reason}.`);
  }
  try {
    return ApproverTokens.fromRecord(record);
  } catch (error) {
    throw new TypeError(`${(error as Error).message} (from ${source})`);
  }
}
