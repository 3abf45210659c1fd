import { generateDecisionKeyPair, parseDecisionPrivateKey } from '../../src/gateway/decisions/decision-signing-key';
import { signDecision } from '../../src/gateway/decisions/sign-decision';
import { boundDecisionSignaturePayload } from '../../src/protocol';
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

  describe('with edited input', () => {
    const key = { keyId: 'gw-1', privateKey: parseDecisionPrivateKey(gateway.privateKeyPem) };
    const edited = signDecision(
      { approvalId, approved: true, approver: 'ana', input: { path: 'drafts/a.txt' } },
      binding,
      key,
      at,
    );

    it('counts an edited decision as signed, input and all', () => {
      expect(edited.input).toEqual({ path: 'drafts/a.txt' });
      expect(verifyBoundDecision(edited, { ...binding, approvalId }, keys, window)).toEqual({ valid: true });
      // Key order is not part of what was signed: the digest is over canonical JSON.
      const reordered = { ...edited, input: { path: 'drafts/a.txt' } };
      expect(verifyBoundDecision(reordered, { ...binding, approvalId }, keys, window)).toEqual({ valid: true });
    });

    it('refuses the decision once its input is changed, dropped or added after signing', () => {
      const { input: _input, ...dropped } = edited;
      for (const decision of [
        { ...edited, input: { path: '/etc/passwd' } },
        { ...edited, input: null },
        dropped,
        { ...signedWith(gateway), input: { path: 'drafts/a.txt' } },
      ]) {
        expect(verifyBoundDecision(decision, { ...binding, approvalId }, keys, window)).toMatchObject({
          valid: false,
          why: expect.stringMatching(/or changed after signing \(edited input included\)$/),
        });
      }
    });

    it('signs an unedited decision over the same bytes as before editing existed (tollgate-decision-v2)', () => {
      const fields = { approved: true, approver: 'ana' };
      const plain = boundDecisionSignaturePayload({ ...binding, approvalId }, fields, 'gw-1', at.toISOString());
      expect(JSON.parse(plain)).toEqual([
        'tollgate-decision-v2',
        'turn-1',
        approvalId,
        'deleteFile',
        'digest-of-a',
        true,
        'ana',
        null,
        at.toISOString(),
        'gw-1',
      ]);
      const withEdit = boundDecisionSignaturePayload(
        { ...binding, approvalId },
        { ...fields, editedInputDigest: 'digest-of-edit' },
        'gw-1',
        at.toISOString(),
      );
      expect(JSON.parse(withEdit)).toEqual(['tollgate-decision-v3', ...JSON.parse(plain).slice(1), 'digest-of-edit']);
    });
  });
});
