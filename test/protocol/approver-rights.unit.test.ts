import { approverRefusal, mayActOnApproval, type ApproverRules } from '../../src/protocol/approver-rights';

const id = 'ap-1';

describe('approverRefusal', () => {
  it('lets anyone deny or approve an approval without rules, and nobody edit it', () => {
    expect(approverRefusal(id, undefined, 'eve', 'deny')).toBeUndefined();
    expect(approverRefusal(id, undefined, undefined, 'approve')).toBeUndefined();
    expect(approverRefusal(id, undefined, 'eve', 'edit')).toBe(
      `Approval "ap-1" may not be approved with changed input: nobody may edit its arguments (the operator's policy names no editors).`,
    );
  });

  it('limits every act to the named approvers, naming them', () => {
    const rules: ApproverRules = { approvers: ['ana', 'bob'] };
    for (const act of ['deny', 'approve', 'edit', 'grant'] as const) {
      expect(approverRefusal(id, rules, 'eve', act)).toBe(
        '"eve" may not decide approval "ap-1"; it is limited to ana, bob.',
      );
    }
    expect(approverRefusal(id, rules, 'bob', 'deny')).toBeUndefined();
    expect(approverRefusal(id, rules, 'bob', 'approve')).toBeUndefined();
  });

  it('compares person ids only: a channel name in a list names only that channel identity', () => {
    const rules: ApproverRules = { approvers: ['slack:U0123'] };
    expect(mayActOnApproval(rules, 'ana', 'approve')).toBe(false);
    expect(mayActOnApproval(rules, 'slack:U0123', 'approve')).toBe(true);
  });

  it('wants a name where there are approver rules, except for a plain decision on rules that only name editors', () => {
    expect(approverRefusal(id, { approvers: ['ana'] }, undefined, 'deny')).toBe(
      'Approval "ap-1" has approver rules; a decision must name its approver.',
    );
    expect(approverRefusal(id, { quorum: 2 }, undefined, 'approve')).toBe(
      'Approval "ap-1" has approver rules; a decision must name its approver.',
    );
    const onlyEditors: ApproverRules = { editors: ['ana'], allowSelfApproval: true, quorum: 1 };
    expect(approverRefusal(id, onlyEditors, undefined, 'approve')).toBeUndefined();
    expect(approverRefusal(id, onlyEditors, undefined, 'edit')).toBe(
      'A decision that changes the input of "ap-1" must name its approver.',
    );
    expect(approverRefusal(id, onlyEditors, undefined, 'grant')).toBe(
      'A grant that decides "ap-1" must name the person who grants it.',
    );
  });

  it('lets the requester deny but not approve, edit or grant their own call when self-approval is off', () => {
    const rules: ApproverRules = { allowSelfApproval: false, requester: 'ana', editors: ['ana'] };
    expect(approverRefusal(id, rules, 'ana', 'deny')).toBeUndefined();
    for (const act of ['approve', 'edit', 'grant'] as const) {
      expect(approverRefusal(id, rules, 'ana', act)).toBe(
        '"ana" requested this call and may not approve it; someone else must.',
      );
    }
    expect(approverRefusal(id, rules, 'bob', 'approve')).toBeUndefined();
    expect(approverRefusal(id, { ...rules, allowSelfApproval: true }, 'ana', 'approve')).toBeUndefined();
  });

  it('lets only a named editor edit, and nobody on a quorum', () => {
    const rules: ApproverRules = { approvers: ['ana', 'bob'], editors: ['ana'] };
    expect(approverRefusal(id, rules, 'ana', 'edit')).toBeUndefined();
    expect(approverRefusal(id, rules, 'bob', 'edit')).toBe(
      '"bob" may not change the input of approval "ap-1"; only ana may. Approve it as asked or deny it.',
    );
    expect(approverRefusal(id, { ...rules, quorum: 2 }, 'ana', 'edit')).toBe(
      'Approval "ap-1" needs 2 approvers, so it cannot be approved with changed input; approve it as asked or deny it.',
    );
  });

  it('lets a grant decide only what its person could approve alone', () => {
    expect(approverRefusal(id, { approvers: ['ana'] }, 'ana', 'grant')).toBeUndefined();
    expect(approverRefusal(id, undefined, 'ana', 'grant')).toBeUndefined();
    expect(approverRefusal(id, undefined, undefined, 'grant')).toBe(
      'A grant that decides "ap-1" must name the person who grants it.',
    );
    expect(approverRefusal(id, { approvers: ['ana', 'bob'], quorum: 2 }, 'ana', 'grant')).toBe(
      'Approval "ap-1" needs 2 approvers, so no one person\'s grant can decide it.',
    );
  });
});
