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

describe("resolveApprovalRules: a turn's caller may only tighten the operator's rules", () => {
  const policy = {
    defaults: { approvalTimeout: '1d' as const },
    tools: { deploy: { approvers: ['ana', 'bob'], quorum: 2, notify: [{ type: 'slack' as const, channel: 'C-ops' }] } },
  };

  it("narrows the operator's approvers to those the caller names, and keeps the operator's when none of them is", () => {
    expect(
      resolveApprovalRules({ policy, toolName: 'deploy', caller: { approvers: ['bob', 'mallory'] } }),
    ).toMatchObject({ rights: { approvers: ['bob'] }, refused: [] });
    expect(resolveApprovalRules({ policy, toolName: 'deploy', caller: { approvers: ['mallory'] } })).toMatchObject({
      rights: { approvers: ['ana', 'bob'] },
      refused: ["The turn's approvers (mallory) are not among the operator's for deploy; the operator's apply."],
    });
  });

  it('keeps self-approval off when the operator names approvers, whatever the caller asks', () => {
    const rules = resolveApprovalRules({
      policy,
      toolName: 'deploy',
      caller: { allowSelfApproval: true },
      requester: 'ana',
    });
    expect(rules.rights).toMatchObject({ allowSelfApproval: false, requester: 'ana' });
    expect(rules.refused).toEqual(['Self-approval stays off for deploy: the operator does not allow it.']);
  });

  it('takes the larger quorum and the shorter timeout', () => {
    expect(
      resolveApprovalRules({ policy, toolName: 'deploy', caller: { quorum: 1, approvalTimeout: '3d' } }),
    ).toMatchObject({ rights: { quorum: 2 }, timeoutMs: 86_400_000 });
    expect(
      resolveApprovalRules({ policy, toolName: 'deploy', caller: { quorum: 3, approvalTimeout: '1h' } }),
    ).toMatchObject({ rights: { quorum: 3 }, timeoutMs: 3_600_000 });
  });

  it('lets a caller make expiry fail the turn, but not make an operator’s fail into a deny', () => {
    expect(resolveApprovalRules({ policy, toolName: 'deploy', caller: { onExpire: 'fail' } }).onExpire).toBe('fail');
    const failing = { tools: { deploy: { onExpire: 'fail' as const } } };
    expect(resolveApprovalRules({ policy: failing, toolName: 'deploy', caller: { onExpire: 'deny' } }).onExpire).toBe(
      'fail',
    );
  });

  it("sends notices only to the operator's targets, noting the caller's were not used", () => {
    const rules = resolveApprovalRules({
      policy,
      toolName: 'deploy',
      caller: { notify: [{ type: 'email', to: ['attacker@example.com'] }] },
    });
    expect(rules.notify).toEqual([{ type: 'slack', channel: 'C-ops' }]);
    expect(rules.refused).toEqual([
      "Notification targets come from the operator's policy; the turn's own targets for deploy were not used.",
    ]);
  });

  it('lets the caller name approvers where the operator names none, and then no one approves their own call', () => {
    expect(resolveApprovalRules({ policy: {}, toolName: 'bash', caller: { approvers: ['ana'] } }).rights).toEqual({
      approvers: ['ana'],
      allowSelfApproval: false,
      quorum: 1,
    });
  });
});

describe('resolveApprovalRules: editors', () => {
  it('lets nobody edit unless the operator names editors, whatever the caller asks', () => {
    expect(resolveApprovalRules({ policy: {}, toolName: 'bash' }).rights).toBeUndefined();
    const asked = resolveApprovalRules({ policy: {}, toolName: 'bash', caller: { editors: ['ana'] } });
    expect(asked.rights?.editors).toBeUndefined();
    expect(asked.refused).toEqual([
      "The turn's editors for bash were not used: the operator lets nobody edit its arguments.",
    ]);
  });

  it("takes the operator's editors per tool, over the defaults and the tool's own rules", () => {
    const policy = { defaults: { editors: ['ops'] }, tools: { bash: { editors: ['ana', 'bob'] } } };
    expect(resolveApprovalRules({ policy, toolName: 'bash' }).rights).toEqual({
      editors: ['ana', 'bob'],
      allowSelfApproval: true,
      quorum: 1,
    });
    expect(resolveApprovalRules({ policy, toolName: 'grep' }).rights?.editors).toEqual(['ops']);
    expect(
      resolveApprovalRules({ policy: {}, toolName: 'deploy', toolRules: { editors: ['ana'] } }).rights?.editors,
    ).toEqual(['ana']);
  });

  it('lets a caller narrow the editors, and only narrow: an empty overlap leaves nobody', () => {
    const policy = { tools: { bash: { editors: ['ana', 'bob'] } } };
    expect(
      resolveApprovalRules({ policy, toolName: 'bash', caller: { editors: ['bob', 'eve'] } }).rights?.editors,
    ).toEqual(['bob']);
    const none = resolveApprovalRules({ policy, toolName: 'bash', caller: { editors: ['eve'] } });
    expect(none.rights?.editors).toBeUndefined();
    expect(none.refused).toEqual([
      "The turn's editors for bash (eve) are not among the operator's; nobody may edit its arguments.",
    ]);
  });
});
