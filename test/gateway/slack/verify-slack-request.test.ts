import { createHmac } from 'node:crypto';
import { signSlackRequest, verifySlackRequest } from '../../../src/gateway/slack';

const secret = '8f742231b10e8888abcd99yyyzzz85a5';
const now = Date.parse('2026-03-01T12:00:00Z');
const nowSeconds = now / 1000;
const body = Buffer.from('payload=%7B%22type%22%3A%22block_actions%22%7D');

function verify(overrides: Partial<Parameters<typeof verifySlackRequest>[0]> & { at?: number } = {}) {
  const headers = signSlackRequest(body, secret, overrides.at ?? nowSeconds);
  return verifySlackRequest({
    rawBody: body,
    timestamp: headers['x-slack-request-timestamp'],
    signature: headers['x-slack-signature'],
    signingSecrets: [secret],
    now,
    ...overrides,
  });
}

describe('verifySlackRequest', () => {
  it('accepts a request signed with the secret over v0:timestamp:body', () => {
    // Computed independently of signSlackRequest, as Slack documents it.
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${nowSeconds}:${body.toString()}`).digest('hex')}`;
    expect(
      verifySlackRequest({ rawBody: body, timestamp: String(nowSeconds), signature, signingSecrets: [secret], now }),
    ).toEqual({ ok: true });
  });

  it('refuses a forged signature', () => {
    const forged = signSlackRequest(body, 'not-the-secret', nowSeconds)['x-slack-signature'];
    expect(verify({ signature: forged })).toEqual({ ok: false, reason: 'the signature does not match' });
  });

  it('refuses a body changed or re-encoded after signing', () => {
    const reencoded = Buffer.from(decodeURIComponent(body.toString()));
    expect(verify({ rawBody: reencoded }).ok).toBe(false);
  });

  it('refuses a timestamp 301 s old or 10 minutes in the future, and accepts one 300 s away', () => {
    expect(verify({ at: nowSeconds - 301 })).toEqual({ ok: false, reason: expect.stringContaining('300 s') });
    expect(verify({ at: nowSeconds + 600 })).toEqual({ ok: false, reason: expect.stringContaining('300 s') });
    expect(verify({ at: nowSeconds - 300 })).toEqual({ ok: true });
    expect(verify({ at: nowSeconds + 300 })).toEqual({ ok: true });
  });

  it('refuses a missing or non-numeric timestamp', () => {
    expect(verify({ timestamp: undefined })).toEqual({ ok: false, reason: 'no timestamp' });
    expect(verify({ timestamp: '' }).ok).toBe(false);
    for (const timestamp of ['abc', '1e9', ' 1772366400', '-1772366400', '1772366400.5', '0x69a44a40']) {
      expect(verify({ timestamp })).toEqual({ ok: false, reason: 'the timestamp is not a number of seconds' });
    }
  });

  it('refuses, without throwing, a signature that is missing, of the wrong length, not hex or of another version', () => {
    const good = signSlackRequest(body, secret, nowSeconds)['x-slack-signature'];
    for (const signature of [
      undefined,
      '',
      'v0=',
      good.slice(0, -2),
      `${good}00`,
      `v0=${'z'.repeat(64)}`,
      `v1=${good.slice(3)}`,
      good.slice(3),
      `v0=${'é'.repeat(32)}`,
    ]) {
      expect(() => verify({ signature })).not.toThrow();
      expect(verify({ signature }).ok).toBe(false);
    }
  });

  it('accepts the old and the new secret during a rotation, and nothing without a secret', () => {
    const signedWithOld = signSlackRequest(body, 'old-secret', nowSeconds);
    const rotating = { signingSecrets: ['new-secret', 'old-secret'], now, rawBody: body };
    expect(
      verifySlackRequest({
        ...rotating,
        timestamp: signedWithOld['x-slack-request-timestamp'],
        signature: signedWithOld['x-slack-signature'],
      }),
    ).toEqual({ ok: true });
    const signedWithNew = signSlackRequest(body, 'new-secret', nowSeconds);
    expect(
      verifySlackRequest({
        ...rotating,
        timestamp: signedWithNew['x-slack-request-timestamp'],
        signature: signedWithNew['x-slack-signature'],
      }),
    ).toEqual({ ok: true });
    expect(verify({ signingSecrets: [] }).ok).toBe(false);
    expect(verify({ signingSecrets: [''] }).ok).toBe(false);
  });
});
