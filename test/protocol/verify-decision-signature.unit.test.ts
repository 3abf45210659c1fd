import { generateDecisionKeyPair, parseDecisionPrivateKey } from '../../src/gateway/decisions/decision-signing-key';
import { signDecision } from '../../src/gateway/decisions/sign-decision';
import { verifyBoundDecision } from '../../src/protocol/verify-decision-signature';

const gateway = generateDecisionKeyPair();
const stranger = generateDecisionKeyPair();
const binding = { workflowId: 'turn-1', toolName: 'deleteFile', argumentsDigest: 'digest-of-a' };
const approvalId = 'dHVybi0x.abc';
const at = new Date('2026-01-02T03:04:05.000Z');
const window = { notBefore: new Date('2026-01-02T03:00:00.000Z'), notAfter: new Date('2026-01-02T03:10:00.000Z') };

function signedWith(pair: { privateKeyPem: string }, keyId = 'gw-1') {
  return signDecision(
    { approvalId, approved: true, approver: 'ana' },
    binding,
    { keyId, privateKey: parseDecisionPrivateKey(pair.privateKeyPem) },
    at,
  );
}

describe('verifyBoundDecision', () => {
  const keys = { 'gw-1': gateway.publicKey };

  it('counts a decision signed by a trusted key for this very approval', () => {
    expect(verifyBoundDecision(signedWith(gateway), { ...binding, approvalId }, keys, window)).toEqual({ valid: true });
  });

  it('refuses an unsigned decision', () => {
    const { signature: _signature, ...unsigned } = signedWith(gateway);
    expect(verifyBoundDecision(unsigned, { ...binding, approvalId }, keys, window)).toEqual({
      valid: false,
      why: 'it is not signed',
    });
  });

  it('refuses a key id the worker does not trust, even one every object has, such as "constructor"', () => {
    for (const keyId of ['gw-2', 'constructor', '__proto__']) {
      expect(verifyBoundDecision(signedWith(gateway, keyId), { ...binding, approvalId }, keys, window)).toEqual({
        valid: false,
        why: `it is signed with key "${keyId}", which this worker does not trust`,
      });
    }
  });

  it("refuses a signature made with another key under a trusted key's id", () => {
    expect(verifyBoundDecision(signedWith(stranger), { ...binding, approvalId }, keys, window)).toMatchObject({
      valid: false,
      why: expect.stringMatching(/^its signature does not verify/),
    });
  });

  it('refuses a valid signature carried over to other arguments of the same tool', () => {
    const verdict = verifyBoundDecision(
      signedWith(gateway),
      { ...binding, argumentsDigest: 'digest-of-b', approvalId },
      keys,
      window,
    );
    expect(verdict.valid).toBe(false);
  });
});
