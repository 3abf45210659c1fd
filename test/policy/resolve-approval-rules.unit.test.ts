import { resolveApprovalRules } from '../../src/policy';

describe('resolveApprovalRules: remindAfter', () => {
  it("does not add a reminder the operator did not set, and says so in the turn's notes", () => {
    const rules = resolveApprovalRules({ policy: {}, toolName: 'bash', caller: { remindAfter: '1s' } });
    expect(rules.remindAfterMs).toBeUndefined();
    expect(rules.refused).toEqual([
      "The turn's remindAfter for bash was not used: the operator sets no reminder for it.",
    ]);
  });

  it("lets a caller bring the operator's reminder sooner, never later", () => {
    const policy = { tools: { bash: { remindAfter: '1h' } } };
    expect(resolveApprovalRules({ policy, toolName: 'bash', caller: { remindAfter: '10m' } })).toMatchObject({
      remindAfterMs: 600_000,
      refused: [],
    });
    expect(resolveApprovalRules({ policy, toolName: 'bash', caller: { remindAfter: '3d' } })).toMatchObject({
      remindAfterMs: 3_600_000,
      refused: ["The turn's remindAfter for bash is later than the operator's; the operator's applies."],
    });
    expect(resolveApprovalRules({ policy, toolName: 'bash' }).remindAfterMs).toBe(3_600_000);
  });

  it("counts a tool's own remindAfter as the operator's", () => {
    const rules = resolveApprovalRules({
      policy: {},
      toolName: 'deploy',
      toolRules: { remindAfter: '30m' },
      caller: { remindAfter: '5m' },
    });
    expect(rules.remindAfterMs).toBe(300_000);
  });
});
