import { createHmac } from 'node:crypto';
import { issueDecisionToken, verifyDecisionToken, type DecisionTokenRequest } from '../../../src/notifications/email';

const secret = 'new-link-secret-0123456789abcdef0123456789';
const oldSecret = 'old-link-secret-fedcba9876543210fedcba9876';
const now = new Date('2030-01-01T12:00:00Z');
const inAnHour = new Date(now.getTime() + 3_600_000);

function request(extra: Partial<DecisionTokenRequest> = {}): DecisionTokenRequest {
  return {
    workflowId: 'turn-0123456789abcdef',
    approvalId: 'dHVybi0wMTIzNDU2Nzg5YWJjZGVm.1a2b3c4d',
    approver: 'email:ana@example.com',
    decision: 'approve',
    expiresAt: inAnHour,
    secret,
    now,
    ...extra,
  };
}

describe('decision tokens', () => {
  it('round-trips the claims it was issued with', () => {
    const token = issueDecisionToken(request());
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyDecisionToken(token, { secrets: [secret], now })).toEqual({
      ok: true,
      claims: {
        jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        pair: expect.any(String),
        iat: now.getTime() / 1000,
        exp: inAnHour.getTime() / 1000,
        workflowId: 'turn-0123456789abcdef',
        approvalId: 'dHVybi0wMTIzNDU2Nzg5YWJjZGVm.1a2b3c4d',
        approver: 'email:ana@example.com',
        decision: 'approve',
      },
    });
  });

  it('refuses the token when any one character of it is changed', () => {
    const token = issueDecisionToken(request());
    for (let index = 0; index < token.length; index += 1) {
      const original = token[index] as string;
      const replacement = original === 'A' ? 'B' : 'A';
      const changed = `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
      const verified = verifyDecisionToken(changed, { secrets: [secret], now });
      expect(verified.ok).toBe(false);
    }
  });

  it('refuses a token with one bit of its signature or claims flipped as a bad signature', () => {
    const token = issueDecisionToken(request());
    const [claims, signature] = token.split('.') as [string, string];
    const flip = (text: string) => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[5] = (bytes[5] as number) ^ 1;
      return bytes.toString('base64url');
    };
    expect(verifyDecisionToken(`${claims}.${flip(signature)}`, { secrets: [secret], now })).toEqual({
      ok: false,
      reason: 'signature',
    });
    expect(verifyDecisionToken(`${flip(claims)}.${signature}`, { secrets: [secret], now })).toEqual({
      ok: false,
      reason: 'signature',
    });
  });

  it('refuses an expired token as expired, from its expiry time on', () => {
    const token = issueDecisionToken(request());
    expect(verifyDecisionToken(token, { secrets: [secret], now: new Date(inAnHour.getTime() - 1000) }).ok).toBe(true);
    expect(verifyDecisionToken(token, { secrets: [secret], now: inAnHour })).toEqual({ ok: false, reason: 'expired' });
  });

  it('checks the signature before the expiry, so a forged expired token is a bad signature', () => {
    const token = issueDecisionToken(request({ secret: 'an-attackers-secret-0123456789abcdef' }));
    expect(verifyDecisionToken(token, { secrets: [secret], now: new Date(inAnHour.getTime() + 1) })).toEqual({
      ok: false,
      reason: 'signature',
    });
  });

  it('refuses a token signed with another secret', () => {
    const token = issueDecisionToken(request({ secret: oldSecret }));
    expect(verifyDecisionToken(token, { secrets: [secret], now })).toEqual({ ok: false, reason: 'signature' });
  });

  it('accepts tokens of the old and the new secret during a rotation', () => {
    for (const signedWith of [secret, oldSecret]) {
      const token = issueDecisionToken(request({ secret: signedWith }));
      expect(verifyDecisionToken(token, { secrets: [secret, oldSecret], now }).ok).toBe(true);
    }
  });

  it('answers malformed, never throwing, for garbage', () => {
    const garbage: unknown[] = [
      undefined,
      null,
      42,
      {},
      '',
      '.',
      'abc',
      'a.b.c',
      'a.b',
      `${'a'.repeat(5000)}.${'b'.repeat(43)}`,
      `eyJ9.${'='.repeat(43)}`,
      'ü.ö',
    ];
    for (const token of garbage) {
      expect(verifyDecisionToken(token, { secrets: [secret], now })).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('refuses a signed token whose claims are not a decision as malformed', () => {
    const encoded = Buffer.from(JSON.stringify({ jti: 'x', decision: 'maybe' })).toString('base64url');
    const signature = createHmac('sha256', secret).update(encoded).digest('base64url');
    expect(verifyDecisionToken(`${encoded}.${signature}`, { secrets: [secret], now })).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('gives the Approve and Deny tokens of one approver one pair, and other approvers other pairs', () => {
    const claimsOf = (token: string) => {
      const verified = verifyDecisionToken(token, { secrets: [secret], now });
      if (!verified.ok) throw new Error(verified.reason);
      return verified.claims;
    };
    const approve = claimsOf(issueDecisionToken(request()));
    const deny = claimsOf(issueDecisionToken(request({ decision: 'deny' })));
    const bob = claimsOf(issueDecisionToken(request({ approver: 'email:bob@example.com' })));
    expect(deny.pair).toBe(approve.pair);
    expect(deny.jti).not.toBe(approve.jti);
    expect(bob.pair).not.toBe(approve.pair);
  });
});
