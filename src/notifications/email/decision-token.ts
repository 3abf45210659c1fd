import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Which decision a link makes. */
export type EmailDecision = 'approve' | 'deny';

/** What a decision link vouches for, once its signature is checked. */
export interface DecisionTokenClaims {
  /** Random 128-bit id of this link (base64url): what makes it single-use. */
  jti: string;
  /** Shared by the Approve and Deny links of one approval and one approver: using one retires the other. */
  pair: string;
  /** When it was issued, in seconds since the epoch (as in a JWT). */
  iat: number;
  /** When it stops working, in seconds since the epoch. */
  exp: number;
  /** The turn. */
  workflowId: string;
  /** The approval of that turn. */
  approvalId: string;
  /** Who decides when the link is used: `email:<address>`. */
  approver: string;
  /** The decision it makes. */
  decision: EmailDecision;
  /** Digest of the arguments the mail showed; the decision is bound to it. */
  argumentsDigest?: string;
}

/** What {@link issueDecisionToken} needs. */
export interface DecisionTokenRequest {
  workflowId: string;
  approvalId: string;
  /** `email:<address>`. */
  approver: string;
  decision: EmailDecision;
  /** Digest of the arguments the mail shows (the approval's `inputDigest`). */
  argumentsDigest?: string;
  /** When the link stops working. */
  expiresAt: Date;
  /** The signing secret (the newest one during a rotation). */
  secret: string;
  /** The issue time; now by default. */
  now?: Date;
}

/** Why a token was refused; a refusal never says more than this. */
export type DecisionTokenRefusal = 'malformed' | 'signature' | 'expired';

/** The outcome of {@link verifyDecisionToken}. */
export type DecisionTokenVerification =
  { ok: true; claims: DecisionTokenClaims } | { ok: false; reason: DecisionTokenRefusal };

// A link is a few hundred characters; anything far longer is not one of ours and is not worth hashing.
const maximumTokenLength = 4096;
const signatureBytes = 32;
const base64urlPattern = /^[A-Za-z0-9_-]+$/;

/**
 * Issues the credential of one email decision link: `<claims>.<signature>`, both base64url, where the
 * signature is HMAC-SHA256 over the encoded claims. It is unguessable (a random 128-bit `jti` and a
 * MAC), bound to the turn, the approval, the approver and the decision, and expires at `expiresAt`.
 *
 * @example
 * const token = issueDecisionToken({
 *   workflowId, approvalId, approver: 'email:ana@example.com', decision: 'approve',
 *   expiresAt: new Date(Date.now() + 86_400_000), secret: process.env.TOLLGATE_EMAIL_LINK_SECRET!,
 * });
 * const link = `${gatewayUrl}/email/decisions/${token}`;
 */
export function issueDecisionToken(request: DecisionTokenRequest): string {
  if (request.secret.length === 0) throw new TypeError('A decision token needs a non-empty secret.');
  const claims: DecisionTokenClaims = {
    jti: randomBytes(16).toString('base64url'),
    pair: pairOf(request.workflowId, request.approvalId, request.approver),
    iat: Math.floor((request.now ?? new Date()).getTime() / 1000),
    exp: Math.floor(request.expiresAt.getTime() / 1000),
    workflowId: request.workflowId,
    approvalId: request.approvalId,
    approver: request.approver,
    decision: request.decision,
    ...(request.argumentsDigest !== undefined && { argumentsDigest: request.argumentsDigest }),
  };
  const encoded = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${encoded}.${sign(encoded, request.secret).toString('base64url')}`;
}

/**
 * Checks a decision link's token against every secret of a rotation and the clock. Never throws:
 * garbage is `malformed`, a token that any secret did not sign (one flipped character is enough) is
 * `signature`, and only a genuine token past its `exp` is `expired`. The signature is checked before
 * anything inside is trusted, with a constant-time comparison of equal-length digests.
 *
 * @example
 * const verified = verifyDecisionToken(token, { secrets: [newSecret, oldSecret], now: new Date() });
 * if (!verified.ok) return refuse(verified.reason);
 */
export function verifyDecisionToken(
  token: unknown,
  options: { secrets: readonly string[]; now: Date },
): DecisionTokenVerification {
  if (typeof token !== 'string' || token.length > maximumTokenLength) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 2) return { ok: false, reason: 'malformed' };
  const [encoded, signatureText] = parts as [string, string];
  const signature = canonicalBase64url(signatureText);
  if (!canonicalBase64url(encoded) || !signature || signature.length !== signatureBytes) {
    return { ok: false, reason: 'malformed' };
  }
  // Every secret is tried, so the time taken does not tell which one (or whether an old one) matched.
  let signed = false;
  for (const secret of options.secrets) {
    if (secret.length > 0 && timingSafeEqual(sign(encoded, secret), signature)) signed = true;
  }
  if (!signed) return { ok: false, reason: 'signature' };
  const claims = claimsOf(encoded);
  if (!claims) return { ok: false, reason: 'malformed' };
  if (options.now.getTime() >= claims.exp * 1000) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

/**
 * The `pair` of an approval and an approver: the same for both of their links (and for a reminder's),
 * so that using one retires them all, and different for every other approver.
 */
function pairOf(workflowId: string, approvalId: string, approver: string): string {
  return createHash('sha256')
    .update(JSON.stringify([workflowId, approvalId, approver]), 'utf8')
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

function sign(encoded: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(encoded, 'ascii').digest();
}

// Node's decoder ignores stray characters and the unused bits of the last character, so two texts can
// decode to the same bytes; accepting only the canonical text makes every changed character count.
function canonicalBase64url(text: string): Buffer | undefined {
  if (!base64urlPattern.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function claimsOf(encoded: string): DecisionTokenClaims | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const claims = parsed as Record<string, unknown>;
  const strings = ['jti', 'pair', 'workflowId', 'approvalId', 'approver'] as const;
  if (!strings.every((key) => typeof claims[key] === 'string' && (claims[key] as string).length > 0)) return undefined;
  if (!Number.isSafeInteger(claims.iat) || !Number.isSafeInteger(claims.exp)) return undefined;
  if (claims.decision !== 'approve' && claims.decision !== 'deny') return undefined;
  if (claims.argumentsDigest !== undefined && typeof claims.argumentsDigest !== 'string') return undefined;
  return {
    jti: claims.jti as string,
    pair: claims.pair as string,
    iat: claims.iat as number,
    exp: claims.exp as number,
    workflowId: claims.workflowId as string,
    approvalId: claims.approvalId as string,
    approver: claims.approver as string,
    decision: claims.decision,
    ...(claims.argumentsDigest !== undefined && { argumentsDigest: claims.argumentsDigest as string }),
  };
}
