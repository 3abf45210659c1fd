import { approvalRequirementOf, resolveApprovalRequirement } from '../../src/tools';

describe('resolveApprovalRequirement', () => {
  it('reads approvalMode as the boolean needsApproval it spells', () => {
    expect(resolveApprovalRequirement({ name: 'deploy', approvalMode: 'always_require' })).toBe(true);
    expect(resolveApprovalRequirement({ name: 'lookup', approvalMode: 'never_require' })).toBe(false);
  });

  it('needs no approval when neither is set', () => {
    expect(resolveApprovalRequirement({ name: 'lookup' })).toBe(false);
  });

  it('accepts both when they agree', () => {
    expect(resolveApprovalRequirement({ name: 'deploy', needsApproval: true, approvalMode: 'always_require' })).toBe(
      true,
    );
  });

  it('refuses both when they disagree, rather than guessing which one the author meant', () => {
    expect(() =>
      resolveApprovalRequirement({ name: 'deploy', needsApproval: true, approvalMode: 'never_require' }),
    ).toThrow('Tool "deploy": needsApproval and approvalMode disagree; set one of them.');
  });

  it('refuses a function with approvalMode set: a function decides per call, the mode always', () => {
    const rule = () => true;
    expect(() =>
      resolveApprovalRequirement({ name: 'transfer', needsApproval: rule, approvalMode: 'always_require' }),
    ).toThrow(/disagree/);
    expect(resolveApprovalRequirement({ name: 'transfer', needsApproval: rule })).toBe(rule);
  });

  it('refuses a truthy string for needsApproval, naming the tool', () => {
    expect(() => resolveApprovalRequirement({ name: 'bash', needsApproval: 'yes' as never })).toThrow(
      'Tool "bash": needsApproval must be a boolean or a function.',
    );
  });
});

describe('approvalRequirementOf', () => {
  it('decides flags in the workflow and functions in an activity', () => {
    expect(approvalRequirementOf(true)).toBe('always');
    expect(approvalRequirementOf(false)).toBe('never');
    expect(approvalRequirementOf(() => true)).toBe('per-call');
  });
});
