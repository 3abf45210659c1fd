import { acceptUnsignedDecisionsFromEnvironment, decisionSigningOf } from '../../src/policy';

const key = 'x'.repeat(43);

describe('which decisions a worker counts', () => {
  it('counts only signed decisions when its policy trusts a key, and says so', () => {
    expect(decisionSigningOf({ decisions: { trustedKeys: { gateway: key } } }, false)).toEqual({
      signed: true,
      description: 'signed: only decisions signed by key "gateway" count',
    });
    // The opt-out allows unsigned decisions only where no key is trusted: it never weakens a signed set-up.
    expect(decisionSigningOf({ decisions: { trustedKeys: { a: key, b: key } } }, true).signed).toBe(true);
  });

  it('refuses a worker without keys unless the operator accepts unsigned decisions explicitly', () => {
    expect(() => decisionSigningOf({}, false)).toThrow(
      /^Tollgate worker: it has no decision public key \(TOLLGATE_DECISION_PUBLIC_KEYS, .*\), so it would count unsigned decisions: anyone who can signal this Temporal namespace .* TOLLGATE_ACCEPT_UNSIGNED_DECISIONS=true\.$/s,
    );
    expect(decisionSigningOf({}, true)).toEqual({
      signed: false,
      description:
        'UNSIGNED decisions count (TOLLGATE_ACCEPT_UNSIGNED_DECISIONS=true): anyone who can signal this Temporal ' +
        'namespace can approve any waiting call',
    });
  });

  it('treats a policy that turns the requirement off as unsigned', () => {
    const policy = { decisions: { requireSigned: false, trustedKeys: { gateway: key } } };
    expect(() => decisionSigningOf(policy, false)).toThrow(/decisions\.requireSigned: false/);
    expect(decisionSigningOf(policy, true).signed).toBe(false);
  });

  it('reads the explicit opt-out, and refuses a value that is neither answer', () => {
    expect(acceptUnsignedDecisionsFromEnvironment({})).toBe(false);
    expect(acceptUnsignedDecisionsFromEnvironment({ TOLLGATE_ACCEPT_UNSIGNED_DECISIONS: 'false' })).toBe(false);
    expect(acceptUnsignedDecisionsFromEnvironment({ TOLLGATE_ACCEPT_UNSIGNED_DECISIONS: ' TRUE ' })).toBe(true);
    expect(() => acceptUnsignedDecisionsFromEnvironment({ TOLLGATE_ACCEPT_UNSIGNED_DECISIONS: 'yes' })).toThrow(
      'TOLLGATE_ACCEPT_UNSIGNED_DECISIONS must be "true" or "false", got "yes".',
    );
  });
});
