import { createHash } from 'node:crypto';
import { canonicalJson, inputDigestOf } from '../../src/protocol';

describe('inputDigestOf', () => {
  it("is the base64url SHA-256 of the input's canonical JSON, as Node computes it", () => {
    for (const input of [{}, { path: 'a.txt' }, [1, 'two', null], 'text', 42, { nested: { list: [{ b: 1, a: 2 }] } }]) {
      expect(inputDigestOf(input)).toBe(createHash('sha256').update(canonicalJson(input)).digest('base64url'));
    }
  });

  it('gives the same digest whatever order the model wrote the keys in, so an approval survives a re-serialised input', () => {
    expect(inputDigestOf({ path: 'a.txt', force: true })).toBe(inputDigestOf({ force: true, path: 'a.txt' }));
  });

  it('gives another digest for any other value, so a decision cannot be moved to other arguments', () => {
    const digests = [
      { path: 'a.txt' },
      { path: 'b.txt' },
      { path: 'a.txt', force: true },
      { path: ['a.txt'] },
      [{ path: 'a.txt' }],
    ].map(inputDigestOf);
    expect(new Set(digests).size).toBe(digests.length);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes an undefined array element as null, as JSON does', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }, undefined], a: 'x' })).toBe('{"a":"x","b":[{"c":2,"d":1},null]}');
  });
});
