import { PersonDirectory } from '../../src/identity/people';
import { approverNamesResolved, resolveApproverNames } from '../../src/identity/resolve-approver-names';

describe('resolveApproverNames', () => {
  const people = PersonDirectory.fromList([
    { id: 'ana', slack: ['T0001/U0123'], email: ['Ana@Example.com'] },
    { id: 'bob', slack: ['U0456'] },
    { id: 'cy', slack: ['T0001/U0999'] },
    { id: 'di', slack: ['T0002/U0999'] },
  ]);

  it('writes each channel name as the person it is, once', () => {
    expect(resolveApproverNames(['slack:U0123', 'email:ana@example.COM', 'ana', 'slack:U0456'], people)).toEqual([
      'ana',
      'bob',
    ]);
  });

  it('keeps person ids, unknown names, and a Slack user two people have in different workspaces, as written', () => {
    expect(resolveApproverNames(['ops-lead', 'slack:U7777', 'email:eve@example.com', 'slack:U0999'], people)).toEqual([
      'ops-lead',
      'slack:U7777',
      'email:eve@example.com',
      'slack:U0999',
    ]);
  });

  it('changes nothing without an identity map: a channel identity is its own person id there', () => {
    expect(resolveApproverNames(['slack:U0123', 'email:ana@example.com'], PersonDirectory.empty())).toEqual([
      'slack:U0123',
      'email:ana@example.com',
    ]);
  });
});

describe('approverNamesResolved', () => {
  const people = PersonDirectory.fromList([{ id: 'ana', slack: ['T0001/U0123'], email: ['ana@example.com'] }]);

  it('resolves the approver and editor lists of a set of rules and keeps the rest as it is', () => {
    expect(
      approverNamesResolved(
        { approvers: ['slack:U0123', 'bob'], editors: ['email:ana@example.com'], quorum: 2, allowSelfApproval: false },
        people,
      ),
    ).toEqual({ approvers: ['ana', 'bob'], editors: ['ana'], quorum: 2, allowSelfApproval: false });
  });

  it('adds no list that the rules did not have', () => {
    const rules: { approvers?: string[]; quorum: number } = { quorum: 1 };
    expect(approverNamesResolved(rules, people)).toEqual({ quorum: 1 });
  });
});
