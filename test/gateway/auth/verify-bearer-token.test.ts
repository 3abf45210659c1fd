import { ApproverTokens, verifyBearerToken } from '../../../src/gateway';

const tokens = ApproverTokens.fromRecord({
  'ana-token-0123456789abcdef': 'ana',
  'ops-bot-token-with-another-length': 'ops-bot',
});

describe('verifyBearerToken', () => {
  it('names the approver of a configured token', () => {
    expect(verifyBearerToken('Bearer ana-token-0123456789abcdef', tokens)?.identity).toBe('ana');
    expect(verifyBearerToken('Bearer ops-bot-token-with-another-length', tokens)?.identity).toBe('ops-bot');
  });

  it('accepts the scheme in any case, as RFC 9110 says auth schemes are case-insensitive', () => {
    expect(verifyBearerToken('bearer ana-token-0123456789abcdef', tokens)?.identity).toBe('ana');
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a wrong token of the same length', 'Bearer ana-token-0123456789abcdeF'],
    ['a shorter token', 'Bearer ana'],
    ['a much longer token', `Bearer ana-token-0123456789abcdef${'x'.repeat(10_000)}`],
    ['a prefix of a real token', 'Bearer ana-token-0123456789abcde'],
    ['another scheme', 'Basic ana-token-0123456789abcdef'],
    ['no token after the scheme', 'Bearer '],
    ['two tokens', 'Bearer ana-token-0123456789abcdef ana-token-0123456789abcdef'],
  ])('refuses %s without throwing', (_case, header) => {
    expect(verifyBearerToken(header, tokens)).toBeUndefined();
  });
});

describe('ApproverTokens', () => {
  it('refuses short tokens and empty identities without quoting the token', () => {
    expect(() => ApproverTokens.fromRecord({ 'short-secret': 'ana' })).toThrow(/approver token #1.*16\+ characters/);
    expect(() => ApproverTokens.fromRecord({ 'short-secret': 'ana' })).not.toThrow(/short-secret/);
    expect(() => ApproverTokens.fromRecord({ 'a-long-enough-token-1234': ' ' })).toThrow(/approver identity/);
    expect(() => ApproverTokens.fromRecord({})).toThrow(/No approver token/);
    expect(() => ApproverTokens.fromRecord(['a-long-enough-token-1234'])).toThrow(/JSON object/);
  });
});
