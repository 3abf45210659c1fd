import { issueInboxValue, verifyInboxValue } from '../../../src/gateway/inbox/signed-inbox-value';

const key = 'inbox-session-key-0123456789abcdef0123456789';
const otherKey = 'another-session-key-0123456789abcdef0123456';
const hour = 3_600_000;

describe('signed inbox values (sign-in links and session cookies)', () => {
  const claims = { purpose: 'inbox-session', person: 'ana', identity: 'email:ana@example.com' } as const;

  it('verifies what it signed, with the newest or an older key during a rotation', () => {
    const value = issueInboxValue(claims, key, { lifetimeMs: hour });
    const verified = verifyInboxValue(value, 'inbox-session', [otherKey, key], new Date());
    expect(verified).toEqual({
      ok: true,
      claims: expect.objectContaining({ person: 'ana', purpose: 'inbox-session' }),
    });
  });

  it('refuses a value signed with another key, or with one byte changed', () => {
    const value = issueInboxValue(claims, otherKey, { lifetimeMs: hour });
    expect(verifyInboxValue(value, 'inbox-session', [key], new Date())).toEqual({ ok: false, reason: 'signature' });
    const good = issueInboxValue(claims, key, { lifetimeMs: hour });
    const [payload, signature] = good.split('.') as [string, string];
    const decoded = Buffer.from(payload, 'base64url').toString('utf8').replace('"ana"', '"bob"');
    const forged = `${Buffer.from(decoded).toString('base64url')}.${signature}`;
    expect(verifyInboxValue(forged, 'inbox-session', [key], new Date())).toEqual({ ok: false, reason: 'signature' });
    const flipped = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(verifyInboxValue(flipped, 'inbox-session', [key], new Date()).ok).toBe(false);
  });

  it('refuses an expired value', () => {
    const issuedAt = new Date('2026-01-01T00:00:00Z');
    const value = issueInboxValue(claims, key, { lifetimeMs: hour, now: issuedAt });
    expect(verifyInboxValue(value, 'inbox-session', [key], new Date(issuedAt.getTime() + hour - 1000)).ok).toBe(true);
    expect(verifyInboxValue(value, 'inbox-session', [key], new Date(issuedAt.getTime() + hour))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('never takes a sign-in link for a session, nor a session for a link', () => {
    const link = issueInboxValue({ ...claims, purpose: 'inbox-sign-in' }, key, { lifetimeMs: hour });
    expect(verifyInboxValue(link, 'inbox-session', [key], new Date())).toEqual({ ok: false, reason: 'malformed' });
    const session = issueInboxValue(claims, key, { lifetimeMs: hour });
    expect(verifyInboxValue(session, 'inbox-sign-in', [key], new Date())).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses junk without throwing', () => {
    for (const junk of [undefined, 42, '', 'a.b.c', 'no-dot', 'x'.repeat(5_000), '€.€']) {
      expect(verifyInboxValue(junk, 'inbox-session', [key], new Date()).ok).toBe(false);
    }
  });

  it('gives each value its own id', () => {
    const first = issueInboxValue(claims, key, { lifetimeMs: hour });
    const second = issueInboxValue(claims, key, { lifetimeMs: hour });
    const idOf = (value: string) =>
      (verifyInboxValue(value, 'inbox-session', [key], new Date()) as { claims: { id: string } }).claims.id;
    expect(idOf(first)).not.toBe(idOf(second));
  });
});
