import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from now, either way, before it is refused as a replay. */
export const slackTimestampToleranceSeconds = 300;

/** What {@link verifySlackRequest} checks. */
export interface SlackRequestToVerify {
  /** The body exactly as it arrived, before any parsing. */
  rawBody: Buffer;
  /** The `X-Slack-Request-Timestamp` header (Unix seconds). */
  timestamp?: string;
  /** The `X-Slack-Signature` header (`v0=<hex>`). */
  signature?: string;
  /** The app's signing secrets: one, or the old and the new while rotating. */
  signingSecrets: readonly string[];
  /** Now, in milliseconds since the epoch (tests move it). */
  now?: number;
}

/** Whether a request came from Slack, and if not, why (for the log; the client only ever sees a 401). */
export type SlackVerification = { ok: true } | { ok: false; reason: string };

// `v0=` and the hex of a SHA-256 digest: anything else cannot match and is refused before comparing.
const signaturePattern = /^v0=[0-9a-fA-F]{64}$/;
const timestampPattern = /^\d{1,12}$/;

/**
 * Verifies a Slack request signature: HMAC-SHA256 with the signing secret over
 * `v0:{timestamp}:{raw body}`, compared in constant time with `v0=<hex>`, and a timestamp within
 * {@link slackTimestampToleranceSeconds} of now in the past or the future. Accepts any of the secrets,
 * so a rotation needs no downtime. Never throws: a malformed header is a failure like any other.
 *
 * @example
 * const verified = verifySlackRequest({
 *   rawBody,
 *   timestamp: request.headers['x-slack-request-timestamp'],
 *   signature: request.headers['x-slack-signature'],
 *   signingSecrets: ['8f742231b10e8888abcd99yyyzzz85a5'],
 * });
 * if (!verified.ok) throw new GatewayError('unauthorized', 'The request is not signed by Slack.');
 */
export function verifySlackRequest(request: SlackRequestToVerify): SlackVerification {
  const { rawBody, timestamp, signature, signingSecrets } = request;
  if (timestamp === undefined || timestamp === '') return { ok: false, reason: 'no timestamp' };
  if (!timestampPattern.test(timestamp)) return { ok: false, reason: 'the timestamp is not a number of seconds' };
  const nowSeconds = Math.floor((request.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > slackTimestampToleranceSeconds) {
    return { ok: false, reason: `the timestamp is more than ${slackTimestampToleranceSeconds} s from now` };
  }
  if (signature === undefined || signature === '') return { ok: false, reason: 'no signature' };
  if (!signaturePattern.test(signature)) return { ok: false, reason: 'the signature is not v0=<64 hex digits>' };
  const usable = signingSecrets.filter((secret) => secret.length > 0);
  if (usable.length === 0) return { ok: false, reason: 'no signing secret is configured' };

  const received = Buffer.from(signature.slice(3), 'hex');
  let matched = false;
  // Every secret is tried, matched or not, so the time taken does not say which one matched.
  for (const secret of usable) {
    const expected = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest();
    if (timingSafeEqual(expected, received)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'the signature does not match' };
}

/**
 * Signs a body as Slack does: the headers a request needs to pass {@link verifySlackRequest}. For tests
 * and local tools that stand in for Slack.
 *
 * @example
 * const headers = signSlackRequest(body, 'my-signing-secret');
 * await fetch(`${gateway}/slack/interactivity`, { method: 'POST', headers, body });
 */
export function signSlackRequest(
  body: string | Buffer,
  signingSecret: string,
  timestampSeconds: number = Math.floor(Date.now() / 1000),
): { 'x-slack-request-timestamp': string; 'x-slack-signature': string } {
  const timestamp = String(timestampSeconds);
  const digest = createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(body).digest('hex');
  return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': `v0=${digest}` };
}
