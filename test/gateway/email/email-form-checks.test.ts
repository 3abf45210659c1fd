import { checkFormOrigin, parseDecisionForm } from '../../../src/gateway/email';

const ownOrigin = 'https://tollgate.example.com';

describe('checkFormOrigin', () => {
  it('accepts a form from the gateway own page, or one without the headers', () => {
    expect(checkFormOrigin({ origin: ownOrigin, fetchSite: 'same-origin', ownOrigin })).toBeUndefined();
    expect(checkFormOrigin({ origin: undefined, fetchSite: undefined, ownOrigin })).toBeUndefined();
  });

  it('refuses another origin, a null origin, and a cross-site fetch', () => {
    expect(checkFormOrigin({ origin: 'https://evil.example', fetchSite: undefined, ownOrigin })).toBe('foreign-origin');
    expect(checkFormOrigin({ origin: 'null', fetchSite: undefined, ownOrigin })).toBe('foreign-origin');
    expect(checkFormOrigin({ origin: `${ownOrigin}.evil.example`, fetchSite: undefined, ownOrigin })).toBe(
      'foreign-origin',
    );
    expect(checkFormOrigin({ origin: undefined, fetchSite: 'cross-site', ownOrigin })).toBe('cross-site');
    expect(checkFormOrigin({ origin: ownOrigin, fetchSite: 'cross-site', ownOrigin })).toBe('cross-site');
  });
});

describe('parseDecisionForm', () => {
  it('reads an optional reason', () => {
    expect(parseDecisionForm('reason=not+during+the+freeze')).toEqual({ reason: 'not during the freeze' });
    expect(parseDecisionForm('reason=')).toEqual({});
    expect(parseDecisionForm('')).toEqual({});
    expect(parseDecisionForm(undefined)).toEqual({});
  });

  it('refuses unknown fields, __proto__, a repeated or too long reason, and a body that is not a form', () => {
    for (const body of ['approved=true', '__proto__=x', 'reason=a&reason=b', `reason=${'x'.repeat(2001)}`]) {
      expect(() => parseDecisionForm(body)).toThrow(expect.objectContaining({ kind: 'invalid-request', status: 400 }));
    }
    expect(() => parseDecisionForm({ reason: 'json' })).toThrow(
      expect.objectContaining({ kind: 'unsupported-media-type', status: 415 }),
    );
  });
});
