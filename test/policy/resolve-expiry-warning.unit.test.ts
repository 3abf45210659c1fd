import { defaultWarnBeforeExpiryMs, resolveApprovalRules, resolveExpiryWarning } from '../../src/policy';

const hour = 3_600_000;
const minute = 60_000;

describe('defaultWarnBeforeExpiryMs', () => {
  it('warns a quarter of the timeout ahead, at most an hour, and not at all under ten minutes', () => {
    expect(defaultWarnBeforeExpiryMs(24 * hour)).toBe(hour);
    expect(defaultWarnBeforeExpiryMs(2 * hour)).toBe(30 * minute);
    expect(defaultWarnBeforeExpiryMs(20 * minute)).toBe(5 * minute);
    expect(defaultWarnBeforeExpiryMs(10 * minute)).toBe(150_000);
    expect(defaultWarnBeforeExpiryMs(9 * minute)).toBeUndefined();
  });
});

describe('resolveExpiryWarning', () => {
  const base = { toolName: 'deploy', hasTargets: true };

  it("takes the default when the operator says nothing, and the operator's own lead otherwise", () => {
    expect(resolveExpiryWarning({ ...base, timeoutMs: 4 * hour })).toEqual({ warnBeforeExpiryMs: hour, refused: [] });
    expect(resolveExpiryWarning({ ...base, timeoutMs: 4 * hour, operator: '10m' })).toEqual({
      warnBeforeExpiryMs: 10 * minute,
      refused: [],
    });
  });

  it('gives no warning without a timeout, without anyone to tell, when the operator turns it off, or before the request', () => {
    expect(resolveExpiryWarning({ ...base, timeoutMs: undefined, operator: '1h' }).warnBeforeExpiryMs).toBeUndefined();
    expect(
      resolveExpiryWarning({ ...base, hasTargets: false, timeoutMs: 4 * hour }).warnBeforeExpiryMs,
    ).toBeUndefined();
    expect(resolveExpiryWarning({ ...base, timeoutMs: 4 * hour, operator: false }).warnBeforeExpiryMs).toBeUndefined();
    expect(resolveExpiryWarning({ ...base, timeoutMs: hour, operator: '2h' }).warnBeforeExpiryMs).toBeUndefined();
  });

  it("lets a turn's caller bring the warning earlier, never later and never where the operator set none", () => {
    expect(resolveExpiryWarning({ ...base, timeoutMs: 4 * hour, operator: '10m', caller: '1h' })).toEqual({
      warnBeforeExpiryMs: hour,
      refused: [],
    });
    expect(resolveExpiryWarning({ ...base, timeoutMs: 4 * hour, operator: '1h', caller: '1m' })).toEqual({
      warnBeforeExpiryMs: hour,
      refused: ["The turn's warnBeforeExpiry for deploy is later than the operator's; the operator's applies."],
    });
    expect(resolveExpiryWarning({ ...base, timeoutMs: 4 * hour, operator: false, caller: '1h' })).toEqual({
      refused: ["The turn's warnBeforeExpiry for deploy was not used: the operator sets no warning for it."],
    });
  });
});

describe('resolveApprovalRules: warnBeforeExpiry', () => {
  it('plans the warning from the policy for the tool, and none for a tool nobody is told about', () => {
    const policy = {
      tools: {
        deploy: { approvalTimeout: '2h', notify: [{ type: 'slack' as const, channel: 'C1' }], warnBeforeExpiry: '15m' },
        lookup: { approvalTimeout: '2h' },
      },
    };
    expect(resolveApprovalRules({ policy, toolName: 'deploy' }).warnBeforeExpiryMs).toBe(15 * minute);
    expect(resolveApprovalRules({ policy, toolName: 'lookup' }).warnBeforeExpiryMs).toBeUndefined();
  });
});
