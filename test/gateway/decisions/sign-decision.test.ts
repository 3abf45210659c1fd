import { createPublicKey, sign, verify } from 'node:crypto';
// Straight from the modules, not the gateway's index: these tests need no HTTP server.
import { DecisionAudit } from '../../../src/gateway/decisions/decision-audit';
import { DecisionRateLimiter } from '../../../src/gateway/decisions/decision-rate-limit';
import {
  decisionPublicKeyOf,
  generateDecisionKeyPair,
  parseDecisionPrivateKey,
} from '../../../src/gateway/decisions/decision-signing-key';
import { neutraliseText } from '../../../src/gateway/decisions/neutralise-text';
import { signDecision } from '../../../src/gateway/decisions/sign-decision';
import { turnOfApprovalQuery, turnsWithPendingApprovalsQuery } from '../../../src/gateway/turns/visibility-query';
import {
  boundDecisionSignaturePayload,
  decisionSignaturePayload,
  toolApprovalDecisionSchema,
} from '../../../src/protocol';
import { hasValidDecisionSignature, verifyBoundDecision } from '../../../src/protocol/verify-decision-signature';

/** The raw 32-byte public key back as a KeyObject, as a worker in another language would build it. */
function publicKeyFromRaw(raw: string) {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw }, format: 'jwk' });
}

describe('signDecision', () => {
  const pair = generateDecisionKeyPair();
  const key = { keyId: 'gw-1', privateKey: parseDecisionPrivateKey(pair.privateKeyPem) };
  const keys = { 'gw-1': pair.publicKey };
  const binding = { workflowId: 'turn-1', toolName: 'writeFile', argumentsDigest: 'q1w2e3' };
  const at = new Date('2026-01-02T03:04:05.000Z');
  const window = { notBefore: new Date('2026-01-02T03:00:00.000Z'), notAfter: new Date('2026-01-02T03:10:00.000Z') };

  it('signs the bound payload, verifiable with the raw public key and by the worker-side check', () => {
    const signed = signDecision(
      { approvalId: 'dHVybi0x.abc', approved: true, approver: 'ana', reason: undefined },
      binding,
      key,
      at,
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
    const payload = Buffer.from(
      boundDecisionSignaturePayload(
        { ...binding, approvalId: signed.approvalId },
        signed,
        'gw-1',
        signed.signature.signedAt,
      ),
    );
    expect(
      verify(null, payload, publicKeyFromRaw(pair.publicKey), Buffer.from(signed.signature.value, 'base64url')),
    ).toBe(true);
    expect(verifyBoundDecision(signed, { ...binding, approvalId: signed.approvalId }, keys, window)).toEqual({
      valid: true,
    });
  });

  it('counts for nothing on another turn, approval, tool or arguments, or once any decided field is changed', () => {
    const signed = signDecision(
      { approvalId: 'dHVybi0x.abc', approved: false, approver: 'ana', reason: 'no' },
      binding,
      key,
      at,
    );
    const own = { ...binding, approvalId: signed.approvalId };
    for (const [decision, bound] of [
      [{ ...signed, approved: true }, own],
      [{ ...signed, approver: 'bob' }, own],
      [{ ...signed, reason: 'yes' }, own],
      [signed, { ...own, workflowId: 'turn-2' }],
      [signed, { ...own, approvalId: 'dHVybi0y.abc' }],
      [signed, { ...own, toolName: 'bash' }],
      [signed, { ...own, argumentsDigest: 'other' }],
    ] as const) {
      expect(verifyBoundDecision(decision, bound, keys, window)).toEqual({
        valid: false,
        why: expect.stringMatching(/another turn, approval, tool or arguments, or changed after signing/),
      });
    }
    expect(verifyBoundDecision(signed, own, { 'gw-1': generateDecisionKeyPair().publicKey }, window).valid).toBe(false);
    expect(verifyBoundDecision(signed, own, { other: pair.publicKey }, window)).toEqual({
      valid: false,
      why: 'it is signed with key "gw-1", which this worker does not trust',
    });
    expect(verifyBoundDecision({ approved: true }, own, keys, window)).toEqual({
      valid: false,
      why: 'it is not signed',
    });
    // Signatures of the form before revision 5 do not verify as bound ones, nor the other way round.
    expect(hasValidDecisionSignature(signed, keys)).toBe(false);
  });

  it('refuses a signature made before the approval existed or in the future', () => {
    const own = { ...binding, approvalId: 'dHVybi0x.abc' };
    const early = signDecision(
      { approvalId: own.approvalId, approved: true },
      binding,
      key,
      new Date('2026-01-02T02:59:59.000Z'),
    );
    expect(verifyBoundDecision(early, own, keys, window)).toEqual({
      valid: false,
      why: 'it was signed at 2026-01-02T02:59:59.000Z, before the approval it claims to decide existed',
    });
    const late = signDecision(
      { approvalId: own.approvalId, approved: true },
      binding,
      key,
      new Date('2026-01-02T03:10:01.000Z'),
    );
    expect(verifyBoundDecision(late, own, keys, window).valid).toBe(false);
  });
});

describe('hasValidDecisionSignature (turns before revision 5)', () => {
  it('still verifies the unbound form, so their histories replay as they ran', () => {
    const pair = generateDecisionKeyPair();
    const privateKey = parseDecisionPrivateKey(pair.privateKeyPem);
    const decision = { approvalId: 'dHVybi0x.abc', approved: true, approver: 'ana' };
    const signedAt = '2026-01-02T03:04:05.000Z';
    const value = sign(null, Buffer.from(decisionSignaturePayload(decision, 'gw-1', signedAt)), privateKey);
    const signed = { ...decision, signature: { keyId: 'gw-1', signedAt, value: value.toString('base64url') } };
    expect(hasValidDecisionSignature(signed, { 'gw-1': pair.publicKey })).toBe(true);
    expect(hasValidDecisionSignature({ ...signed, approver: 'bob' }, { 'gw-1': pair.publicKey })).toBe(false);
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
