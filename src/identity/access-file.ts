import { readFileSync } from 'node:fs';
import { PersonDirectory } from './people';
import { isTokenScope, type TokenScope } from './scopes';
import { digestToken } from './token-digest';

/** Shortest token accepted: a bearer token is a password, and short ones can be guessed. */
export const minimumTokenLength = 16;

/** One token as the access file grants it, kept only as its digest. */
export interface TokenGrant {
  /** SHA-256 of the token. */
  digest: Buffer;
  /** The person the token speaks for. */
  identity: string;
  /** What it may do. */
  scopes: readonly TokenScope[];
}

/** What an access file configures. */
export interface AccessConfiguration {
  tokens: TokenGrant[];
  people: PersonDirectory;
}

/**
 * Reads an access file (`TOLLGATE_ACCESS_FILE`):
 *
 * ```json
 * {
 *   "people": [
 *     { "id": "ana", "slack": ["T0001/U0123ANA"], "email": ["ana@example.com"] },
 *     { "id": "bob", "slack": ["U0456BOB"] }
 *   ],
 *   "tokens": [
 *     { "person": "ana", "sha256": "<hex SHA-256 of the token>", "scopes": ["turns:start", "turns:read", "approvals:decide"] },
 *     { "person": "ops-bot", "sha256": "<hex>", "scopes": ["turns:start", "turns:autonomous", "turns:read"] },
 *     { "person": "auditor", "token": "<the token itself; sha256 is better>", "scopes": ["turns:read-all", "audit:read"] }
 *   ]
 * }
 * ```
 *
 * A token is given as `sha256` (hex, 64 digits: `printf %s "$TOKEN" | sha256sum`) or as `token`. When
 * `people` is not empty, every token's person must be one of them. Throws a TypeError that names the
 * entry by position, never by its token.
 */
export function parseAccessConfiguration(value: unknown): AccessConfiguration {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError('The access file must be a JSON object with "tokens" and optionally "people".');
  }
  const { people: peopleList = [], tokens: tokenList, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new TypeError(`The access file has unknown field(s): ${unknown.join(', ')}.`);
  const people = PersonDirectory.fromList(peopleList);
  if (!Array.isArray(tokenList) || tokenList.length === 0) {
    throw new TypeError('The access file must list at least one token under "tokens".');
  }
  const tokens = tokenList.map((entry: unknown, index): TokenGrant => {
    const where = `tokens[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new TypeError(`${where} must be an object { person, sha256 | token, scopes }.`);
    }
    const { person, sha256, token, scopes, ...others } = entry as Record<string, unknown>;
    const extra = Object.keys(others);
    if (extra.length > 0) throw new TypeError(`${where} has unknown field(s): ${extra.join(', ')}.`);
    if (typeof person !== 'string' || person.trim().length === 0 || person.length > 200) {
      throw new TypeError(`${where}.person must be a non-empty string of at most 200 characters.`);
    }
    if (people.configured && !people.person(person)) {
      throw new TypeError(`${where}.person "${person}" is not one of "people".`);
    }
    if ((sha256 === undefined) === (token === undefined)) {
      throw new TypeError(`${where} needs exactly one of "sha256" and "token".`);
    }
    let digest: Buffer;
    if (sha256 !== undefined) {
      if (typeof sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha256)) {
        throw new TypeError(`${where}.sha256 must be 64 hex digits (the SHA-256 of the token).`);
      }
      digest = Buffer.from(sha256, 'hex');
    } else {
      if (typeof token !== 'string' || token.length < minimumTokenLength || /\s/.test(token)) {
        throw new TypeError(`${where}.token needs ${minimumTokenLength}+ characters and no whitespace.`);
      }
      digest = digestToken(token);
    }
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isTokenScope)) {
      throw new TypeError(
        `${where}.scopes must be a non-empty array of: turns:start, turns:autonomous, turns:read, turns:read-all, approvals:decide, audit:read.`,
      );
    }
    return { digest, identity: person.trim(), scopes: [...new Set(scopes)] };
  });
  const seen = new Set<string>();
  tokens.forEach((grant, index) => {
    const key = grant.digest.toString('hex');
    if (seen.has(key)) throw new TypeError(`tokens[${index}] repeats an earlier token.`);
    seen.add(key);
  });
  return { tokens, people };
}

/** Reads and parses the access file at `file`; errors name the file, never its contents. */
export function readAccessFile(file: string): AccessConfiguration {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'not valid JSON';
    throw new TypeError(`Cannot read the access file ${file}: ${reason}.`);
  }
  try {
    return parseAccessConfiguration(value);
  } catch (error) {
    throw new TypeError(`${(error as Error).message} (in ${file})`);
  }
}
