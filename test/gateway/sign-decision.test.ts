import { createPublicKey, verify } from 'node:crypto';
// Straight from the modules, not the gateway's index: these tests need no HTTP server.
import { DecisionAudit } from '../../src/gateway/decision-audit';
import { DecisionRateLimiter } from '../../src/gateway/decision-rate-limit';
import {
  decisionPublicKeyOf,
  generateDecisionKeyPair,
  parseDecisionPrivateKey,
} from '../../src/gateway/decision-signing-key';
import { neutraliseText } from '../../src/gateway/neutralise-text';
import { signDecision } from '../../src/gateway/sign-decision';
import { turnOfApprovalQuery, turnsWithPendingApprovalsQuery } from '../../src/gateway/visibility-query';
import { decisionSignaturePayload, toolApprovalDecisionSchema } from '../../src/protocol';
import { hasValidDecisionSignature } from '../../src/workflows/verify-decision-signature';

/** The raw 32-byte public key back as a KeyObject, as a worker in another language would build it. */
function publicKeyFromRaw(raw: string) {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw }, format: 'jwk' });
}

describe('signDecision', () => {
  const pair = generateDecisionKeyPair();
  const key = { keyId: 'gw-1', privateKey: parseDecisionPrivateKey(pair.privateKeyPem) };

  it('signs the protocol payload, verifiable with the raw public key and by the worker-side check', () => {
    const signed = signDecision(
      { approvalId: 'dHVybi0x.abc', approved: true, approver: 'ana', argumentsDigest: 'q1w2e3', reason: undefined },
      key,
      new Date('2026-01-02T03:04:05.000Z'),
    );
    expect(signed).toEqual({
      approvalId: 'dHVybi0x.abc',
      approved: true,
      approver: 'ana',
      argumentsDigest: 'q1w2e3',
      signature: { keyId: 'gw-1', signedAt: '2026-01-02T03:04:05.000Z', value: expect.any(String) },
    });
    // The decision is what the update's schema accepts, signature included.
    expect(toolApprovalDecisionSchema.parse(signed)).toEqual(signed);
    expect(pair.publicKey).toBe(decisionPublicKeyOf(key.privateKey));
    expect(Buffer.from(pair.publicKey, 'base64url')).toHaveLength(32);
    const payload = Buffer.from(decisionSignaturePayload(signed, 'gw-1', signed.signature.signedAt));
    expect(
      verify(null, payload, publicKeyFromRaw(pair.publicKey), Buffer.from(signed.signature.value, 'base64url')),
    ).toBe(true);
    expect(hasValidDecisionSignature(signed, { 'gw-1': pair.publicKey })).toBe(true);
  });

  it('gives a signature that no longer verifies once any signed field is changed', () => {
    const signed = signDecision({ approvalId: 'dHVybi0x.abc', approved: false, approver: 'ana', reason: 'no' }, key);
    for (const forged of [
      { ...signed, approved: true },
      { ...signed, approver: 'bob' },
      { ...signed, reason: 'yes' },
      { ...signed, approvalId: 'dHVybi0y.abc' },
      { ...signed, argumentsDigest: 'other' },
    ]) {
      expect(hasValidDecisionSignature(forged, { 'gw-1': pair.publicKey })).toBe(false);
    }
    expect(hasValidDecisionSignature(signed, { 'gw-1': generateDecisionKeyPair().publicKey })).toBe(false);
  });
});

describe('neutraliseText', () => {
  it('shows bidi overrides, isolates and control characters instead of obeying them', () => {
    expect(neutraliseText('fine \u202Eyrgna\u202C \u2066x\u2069 \u001b[31mred\r')).toBe(
      'fine <U+202E>yrgna<U+202C> <U+2066>x<U+2069> <U+001B>[31mred<U+000D>',
    );
    expect(neutraliseText('plain text, with tabs\tand\nlines')).toBe('plain text, with tabs\tand\nlines');
  });

  it('is applied to every reason the audit keeps', async () => {
    const audit = new DecisionAudit();
    await audit.record({
      at: '2026-01-01T00:00:00.000Z',
      approver: 'ana',
      channel: 'rest',
      approvalId: 'x',
      approved: false,
      reason: 'ok \u202Edevorppa',
      outcome: 'refused',
      refusal: { code: 'conflict', detail: 'said \u202Eon' },
    });
    expect(audit.list()[0]).toMatchObject({ reason: 'ok <U+202E>devorppa', refusal: { detail: 'said <U+202E>on' } });
  });
});

describe('DecisionRateLimiter', () => {
  it('counts per person and says when to retry', () => {
    let now = 0;
    const limiter = new DecisionRateLimiter({ max: 2, timeWindowMs: 10_000, now: () => now });
    expect(limiter.take('ana')).toEqual({ allowed: true });
    expect(limiter.take('ana')).toEqual({ allowed: true });
    expect(limiter.take('bob')).toEqual({ allowed: true });
    now = 4_000;
    expect(limiter.take('ana')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    now = 10_000;
    expect(limiter.take('ana')).toEqual({ allowed: true });
  });
});

describe('visibility queries', () => {
  it('carries only values of a safe alphabet, never escaping anything', () => {
    expect(turnOfApprovalQuery('mcpr_abc-123')).toBe("TollgatePendingApprovals = 'mcpr_abc-123'");
    expect(turnOfApprovalQuery("a' OR WorkflowId != '")).toBeUndefined();
    expect(turnOfApprovalQuery('a\\b')).toBeUndefined();
    expect(turnOfApprovalQuery('a\u0000b')).toBeUndefined();
    expect(() => turnsWithPendingApprovalsQuery("q' OR 1=1")).toThrow(/task queue/);
  });
});
