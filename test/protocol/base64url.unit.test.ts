import { decodeBase64Url, encodeBase64Url } from '../../src/protocol/base64url';

describe('base64url', () => {
  it('writes bytes as Node writes base64url, without padding', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 32, 33]) {
      const bytes = Array.from({ length }, (_, index) => (index * 97 + 251) & 0xff);
      expect(encodeBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
      expect(decodeBase64Url(encodeBase64Url(bytes))).toEqual(bytes);
    }
  });

  it('reads nothing from text outside its alphabet', () => {
    expect(decodeBase64Url('ab+c')).toBeUndefined();
    expect(decodeBase64Url('ab=')).toBeUndefined();
  });
});
