import { readDecision } from '../../../src/workflows/guards/read-decision';

describe('readDecision', () => {
  it('reads a decision with every field it knows', () => {
    const signature = { keyId: 'gateway', signedAt: '2026-01-01T00:00:00Z', value: 'c2lnbmVk' };
    expect(
      readDecision({
        approvalId: 'a1',
        approved: false,
        reason: 'not on Fridays',
        approver: 'alice',
        argumentsDigest: 'digest',
        signature,
      }),
    ).toEqual({
      approvalId: 'a1',
      approved: false,
      reason: 'not on Fridays',
      approver: 'alice',
      argumentsDigest: 'digest',
      signature,
    });
  });

  it('keeps a minimal decision minimal: no field is invented', () => {
    expect(readDecision({ approvalId: 'a1', approved: true })).toStrictEqual({ approvalId: 'a1', approved: true });
  });

  it('refuses a decision with an unknown field, naming the field', () => {
    expect(readDecision({ approvalId: 'a1', approved: true, approvedBy: 'alice' })).toEqual({
      invalid: 'unknown field "approvedBy"',
    });
  });

  it('cuts a long unknown field name, so a sender cannot fill the audit with it', () => {
    const result = readDecision({ approvalId: 'a1', approved: true, ['x'.repeat(5000)]: 1 });
    expect(result).toEqual({ invalid: `unknown field "${'x'.repeat(40)}"` });
  });

  it('refuses what is not an object, saying what a decision looks like', () => {
    for (const payload of [null, 'approve', ['a1', true], 1]) {
      expect(readDecision(payload)).toEqual({
        invalid: 'a decision must be an object { approvalId, approved, reason?, approver? }',
      });
    }
  });

  it('refuses "yes" and 1 for approved: only true or false decide', () => {
    expect(readDecision({ approvalId: 'a1', approved: 'yes' })).toEqual({ invalid: 'approved must be true or false' });
    expect(readDecision({ approvalId: 'a1', approved: 1 })).toEqual({ invalid: 'approved must be true or false' });
  });

  it('refuses an empty or missing approvalId', () => {
    expect(readDecision({ approvalId: '', approved: true })).toEqual({
      invalid: 'approvalId must be a string of 1 to 1000 characters',
    });
    expect(readDecision({ approved: true })).toEqual({
      invalid: 'approvalId must be a string of 1 to 1000 characters',
    });
  });

  it('refuses an empty approver, which would read as anonymous', () => {
    expect(readDecision({ approvalId: 'a1', approved: true, approver: '' })).toEqual({
      invalid: 'approver must be a string of 1 to 200 characters',
    });
  });

  it('refuses a reason too long to show a person', () => {
    expect(readDecision({ approvalId: 'a1', approved: false, reason: 'r'.repeat(2001) })).toEqual({
      invalid: 'reason must be a string of at most 2000 characters',
    });
  });

  it('refuses a signature with a missing, empty or extra field', () => {
    const invalid = { invalid: 'signature must be { keyId, signedAt, value } strings' };
    const signature = { keyId: 'gateway', signedAt: '2026-01-01T00:00:00Z', value: 'c2lnbmVk' };
    expect(readDecision({ approvalId: 'a1', approved: true, signature: { ...signature, value: '' } })).toEqual(invalid);
    expect(readDecision({ approvalId: 'a1', approved: true, signature: { keyId: 'gateway' } })).toEqual(invalid);
    expect(readDecision({ approvalId: 'a1', approved: true, signature: { ...signature, approved: true } })).toEqual(
      invalid,
    );
    expect(readDecision({ approvalId: 'a1', approved: true, signature: 'c2lnbmVk' })).toEqual(invalid);
  });

  it('reads edited input only where the turn accepts it (revision 7), and only with an approval', () => {
    const edited = { approvalId: 'a1', approved: true, approver: 'ana', input: { path: 'b.txt' } };
    expect(readDecision(edited)).toEqual({ invalid: 'unknown field "input"' });
    expect(readDecision(edited, { acceptsInput: true })).toEqual(edited);
    expect(readDecision({ ...edited, approved: false }, { acceptsInput: true })).toEqual({
      invalid: 'input goes only with approved: true',
    });
  });
});
