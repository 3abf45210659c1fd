import { generateKeyPairSync } from 'node:crypto';
import { readResumedDecision } from '../../../src/activities/planning/read-resumed-decision';
import { signDecision } from '../../../src/gateway';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keys = { gw: publicKey.export({ format: 'jwk' }).x as string };
const binding = { workflowId: 'turn-2', approvalId: 'turn-1.a1', toolName: 'deleteFile', argumentsDigest: 'digest-1' };
const startedAt = '2026-03-01T10:00:00.000Z';
const now = new Date('2026-03-01T10:01:00.000Z');

/** A response as the gateway vouches for it in a new turn's messages: approver and signature in providerOptions. */
function vouched(signedFor = binding, signedAt = new Date('2026-03-01T10:00:30.000Z'), reason?: string) {
  const signed = signDecision(
    { approvalId: signedFor.approvalId, approved: true, approver: 'ana', ...(reason !== undefined && { reason }) },
    { workflowId: signedFor.workflowId, toolName: signedFor.toolName, argumentsDigest: signedFor.argumentsDigest },
    { keyId: 'gw', privateKey },
    signedAt,
  );
  return {
    approved: true,
    ...(reason !== undefined && { reason }),
    providerOptions: {
      tollgate: { approver: 'ana', argumentsDigest: signedFor.argumentsDigest, signature: signed.signature },
    },
  };
}

describe('readResumedDecision', () => {
  it('counts a decision signed for this turn, this request, its tool and arguments, since the run started', () => {
    expect(readResumedDecision(vouched(binding, undefined, 'looks fine'), binding, { keys, startedAt, now })).toEqual({
      approved: true,
      reason: 'looks fine',
      approver: 'ana',
      signed: true,
    });
  });

  it("does not count a decision copied from another turn's messages, and says why", () => {
    const fromAnotherTurn = vouched({ ...binding, workflowId: 'turn-other' });
    expect(readResumedDecision(fromAnotherTurn, binding, { keys, startedAt, now })).toMatchObject({
      approver: 'ana',
      signed: false,
      signatureProblem: expect.stringMatching(/another turn, approval, tool or arguments/),
    });
  });

  it('does not count a decision signed before this run started', () => {
    const early = vouched(binding, new Date('2026-03-01T09:50:00.000Z'));
    expect(readResumedDecision(early, binding, { keys, startedAt, now })).toMatchObject({ signed: false });
  });

  it('reads an unsigned answer, or one whose signature is not the gateway shape, as unsigned', () => {
    expect(readResumedDecision({ approved: false, reason: 'no' }, binding, { keys, startedAt, now })).toEqual({
      approved: false,
      reason: 'no',
      signed: false,
      signatureProblem: 'it is not signed',
    });
    const oversized = vouched();
    const signature = oversized.providerOptions.tollgate.signature;
    oversized.providerOptions.tollgate.signature = { ...signature, keyId: 'k'.repeat(201) };
    expect(readResumedDecision(oversized, binding, { keys, startedAt, now })).toMatchObject({
      signed: false,
      signatureProblem: 'it is not signed',
    });
  });

  it('takes the approver only as a string', () => {
    const response = { approved: true, providerOptions: { tollgate: { approver: { name: 'ana' } } } };
    expect(readResumedDecision(response, binding, { keys, startedAt, now })).not.toHaveProperty('approver');
  });
});
