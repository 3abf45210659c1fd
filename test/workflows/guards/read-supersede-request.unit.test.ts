import { readSupersedeRequest } from '../../../src/workflows/guards/read-supersede-request';

describe('readSupersedeRequest', () => {
  it('reads the reason a conversation sends, cut to 500 characters', () => {
    expect(readSupersedeRequest({ reason: 'superseded by a new message' })).toEqual({
      reason: 'superseded by a new message',
    });
    expect(readSupersedeRequest({ reason: 'x'.repeat(2_000_000) })).toEqual({ reason: 'x'.repeat(500) });
  });

  it('reads other reasons as text, as turns always have (so histories replay)', () => {
    expect(readSupersedeRequest({ reason: 42 })).toEqual({ reason: '42' });
    expect(readSupersedeRequest({})).toEqual({ reason: 'undefined' });
    expect(readSupersedeRequest({ reason: [1, [2]] })).toEqual({ reason: '1,2' });
  });

  it.each([
    ['null', null],
    ['a string', 'stop'],
    ['a number', 7],
    ['an array', ['stop']],
  ])('refuses %s without throwing', (_name, payload) => {
    expect(readSupersedeRequest(payload)).toEqual({ invalid: 'a supersede request must be an object { reason }' });
  });

  it.each(['{"toString":"x"}', '{"toString":"x","valueOf":"y"}', '[{"toString":"x"}]'])(
    'refuses a reason String() would throw on, %s, without throwing',
    (json) => {
      expect(readSupersedeRequest({ reason: JSON.parse(json) })).toEqual({
        invalid: 'the reason must be text, and this one cannot be read as text',
      });
    },
  );

  it('refuses a reason nested 100,000 deep, which String() would overflow on', () => {
    const reason = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(readSupersedeRequest({ reason })).toEqual({ invalid: 'the reason is nested deeper than 8 levels' });
  });
});
