import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a signed inbox value is for: a one-time sign-in link, or the session cookie it opens. */
export type InboxValuePurpose = 'inbox-sign-in' | 'inbox-session';

/** What a signed inbox value says. */
export interface InboxValueClaims {
  /** What it is for; a sign-in link is never a session, nor the other way round. */
  purpose: InboxValuePurpose;
  /** The person id it stands for. */
  person: string;
  /** The channel identity the person proved: `email:ana@example.com`. */
  identity: string;
  /** A random id: the link's (used once) or the session's (retired at sign-out). */
  id: string;
  /** Issued at, seconds since the epoch. */
  iat: number;
  /** Expires at, seconds since the epoch. */
  exp: number;
}

/** Why a value was refused. */
export type InboxValueRefusal = 'malformed' | 'signature' | 'expired';

/** The outcome of {@link verifyInboxValue}. */
export type InboxValueVerification = { ok: true; claims: InboxValueClaims } | { ok: false; reason: InboxValueRefusal };

/** Shortest key accepted: an HMAC key, and a short one can be guessed offline. */
export const minimumInboxKeyLength = 32;

// Values are bounded before anything is decoded: a cookie or a path segment, never a document.
const valueLengthLimit = 2_000;

/**
 * Signs claims as `<base64url JSON>.<base64url HMAC-SHA256>` with `key`. Any gateway holding the key verifies it:
 * nothing about a session is kept in one process's memory.
 *
 * @example
 * const cookie = issueInboxValue({ purpose: 'inbox-session', person: 'ana', identity: 'email:ana@example.com' }, key, { lifetimeMs: 8 * 3_600_000 });
 */
export function issueInboxValue(
  claims: Pick<InboxValueClaims, 'purpose' | 'person' | 'identity'>,
  key: string,
  options: { lifetimeMs: number; now?: Date },
): string {
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const full: InboxValueClaims = {
    purpose: claims.purpose,
    person: claims.person,
    identity: claims.identity,
    id: randomBytes(16).toString('base64url'),
    iat,
    exp: iat + Math.max(1, Math.ceil(options.lifetimeMs / 1000)),
  };
  const payload = Buffer.from(JSON.stringify(full), 'utf8').toString('base64url');
  return `${payload}.${mac(payload, key)}`;
}

/**
 * Verifies a signed inbox value for one purpose against every key (the newest and the ones being rotated out),
 * comparing MACs in constant time, then its shape and its expiry. Never throws on what a client sent.
 *
 * @example
 * const verified = verifyInboxValue(cookie, 'inbox-session', [key], new Date());
 * if (verified.ok) console.log(verified.claims.person);
 */
export function verifyInboxValue(
  value: unknown,
  purpose: InboxValuePurpose,
  keys: readonly string[],
  now: Date,
): InboxValueVerification {
  if (typeof value !== 'string' || value.length === 0 || value.length > valueLengthLimit) {
    return { ok: false, reason: 'malformed' };
  }
  const parts = value.split('.');
  if (parts.length !== 2 || !parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part))) {
    return { ok: false, reason: 'malformed' };
  }
  const [payload, signature] = parts as [string, string];
  const given = Buffer.from(signature, 'base64url');
  const signedByOne = keys.some((key) => {
    const expected = Buffer.from(mac(payload, key), 'base64url');
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!signedByOne) return { ok: false, reason: 'signature' };
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!isClaims(claims) || claims.purpose !== purpose) return { ok: false, reason: 'malformed' };
  if (claims.exp * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

// The purpose is inside the MAC's input twice over: in the claims, and as a label, so a key shared with
// another use (a derived key) never signs something this module would read.
function mac(payload: string, key: string): string {
  return createHmac('sha256', key).update(`tollgate-inbox-v1.${payload}`).digest('base64url');
}

function isClaims(value: unknown): value is InboxValueClaims {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const claims = value as Record<string, unknown>;
  return (
    (claims.purpose === 'inbox-sign-in' || claims.purpose === 'inbox-session') &&
    typeof claims.person === 'string' &&
    claims.person.length > 0 &&
    typeof claims.identity === 'string' &&
    typeof claims.id === 'string' &&
    claims.id.length > 0 &&
    Number.isInteger(claims.iat) &&
    Number.isInteger(claims.exp)
  );
}
