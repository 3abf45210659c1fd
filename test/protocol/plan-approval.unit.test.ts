import {
  approvedPlanText,
  planCoverProblem,
  planLimits,
  readPlan,
  strictestRights,
} from '../../src/protocol/plan-approval';

const anyone = { allowSelfApproval: true, quorum: 1 };

describe('readPlan', () => {
  it('reads the calls of a plan in order', () => {
    expect(
      readPlan({
        calls: [
          { toolName: 'deleteFile', input: { path: 'a.txt' } },
          { toolName: 'lookup', input: { query: 'b' } },
        ],
      }),
    ).toEqual({
      calls: [
        { toolName: 'deleteFile', input: { path: 'a.txt' } },
        { toolName: 'lookup', input: { query: 'b' } },
      ],
    });
  });

  it('says what is wrong with something that is not a plan', () => {
    expect(readPlan('delete everything')).toEqual({ problem: expect.stringContaining('A plan is an object') });
    expect(readPlan({ calls: [] })).toEqual({ problem: expect.stringContaining('at least one call') });
    expect(readPlan({ calls: [{ toolName: 'x', input: {} }], why: 'trust me' })).toEqual({
      problem: expect.stringContaining('"why"'),
    });
    expect(readPlan({ calls: [{ input: {} }] })).toEqual({ problem: 'Call 1 of the plan names no tool ("toolName").' });
    expect(readPlan({ calls: [{ toolName: 'lookup' }] })).toEqual({
      problem: 'Call 1 of the plan (lookup) has no "input".',
    });
    expect(readPlan({ calls: [{ toolName: 'lookup', input: {}, run: true }] })).toEqual({
      problem: expect.stringContaining('"run"'),
    });
  });

  it('bounds the number of calls, the size of each input, all inputs together and their nesting', () => {
    const call = { toolName: 'lookup', input: { query: 'q' } };
    expect(readPlan({ calls: Array.from({ length: planLimits.calls }, () => call) })).toHaveProperty('calls');
    expect(readPlan({ calls: Array.from({ length: planLimits.calls + 1 }, () => call) })).toEqual({
      problem: `A plan lists at most ${planLimits.calls} calls; this one lists ${planLimits.calls + 1}.`,
    });
    const big = { toolName: 'lookup', input: { query: 'x'.repeat(planLimits.inputCharacters) } };
    expect(readPlan({ calls: [big] })).toEqual({ problem: expect.stringContaining('at most 8000') });
    const large = { toolName: 'lookup', input: { query: 'x'.repeat(planLimits.inputCharacters - 20) } };
    expect(readPlan({ calls: [large, large, large, large, large] })).toEqual({
      problem: expect.stringContaining('propose fewer calls'),
    });
    let deep: unknown = 'bottom';
    for (let level = 0; level < planLimits.depth + 1; level += 1) deep = { deeper: deep };
    expect(readPlan({ calls: [{ toolName: 'lookup', input: deep }] })).toEqual({
      problem: expect.stringContaining(`deeper than ${planLimits.depth} levels`),
    });
  });
});

describe('strictestRights', () => {
  it('leaves a plan of calls without rules to anyone', () => {
    expect(strictestRights([{ toolName: 'lookup' }, { toolName: 'deleteFile' }])).toEqual({});
  });

  it('asks for people who may decide every call: lists intersect, the largest quorum holds, self-approval only where all allow it', () => {
    expect(
      strictestRights(
        [
          { toolName: 'deploy', rights: { approvers: ['ana', 'bo', 'cy'], allowSelfApproval: true, quorum: 1 } },
          { toolName: 'transfer', rights: { approvers: ['bo', 'cy', 'di'], allowSelfApproval: false, quorum: 2 } },
          { toolName: 'lookup', rights: anyone },
          { toolName: 'notes' },
        ],
        'eve',
      ),
    ).toEqual({ rights: { approvers: ['bo', 'cy'], allowSelfApproval: false, quorum: 2, requester: 'eve' } });
  });

  it('refuses a plan no one may decide whole, naming each tool’s approvers', () => {
    const refused = strictestRights([
      { toolName: 'deploy', rights: { approvers: ['ana'], allowSelfApproval: true, quorum: 1 } },
      { toolName: 'transfer', rights: { approvers: ['bo'], allowSelfApproval: true, quorum: 1 } },
    ]);
    expect(refused).toEqual({ problem: expect.stringContaining('No one may decide every call of this plan') });
    expect((refused as { problem: string }).problem).toContain('deploy: ana; transfer: bo');
  });

  it('refuses a plan whose quorum its common approvers cannot reach', () => {
    expect(
      strictestRights(
        [
          { toolName: 'deploy', rights: { approvers: ['ana', 'bo'], allowSelfApproval: false, quorum: 1 } },
          { toolName: 'transfer', rights: { allowSelfApproval: true, quorum: 2 } },
        ],
        'bo',
      ),
    ).toEqual({ problem: expect.stringContaining('needs 2 approvers') });
  });
});

describe('planCoverProblem', () => {
  const entry = { toolName: 'deleteFile', inputDigest: 'digest-a' };

  it('covers the same tool with the same arguments’ digest, nothing else', () => {
    expect(planCoverProblem(entry, { toolName: 'deleteFile', inputDigest: 'digest-a' }, ['ana'])).toBeUndefined();
    expect(planCoverProblem(entry, { toolName: 'deleteFile', inputDigest: 'digest-b' }, ['ana'])).toBe(
      'not on the plan',
    );
    expect(planCoverProblem(entry, { toolName: 'writeFile', inputDigest: 'digest-a' }, ['ana'])).toBe(
      'not on the plan',
    );
  });

  it("holds the plan's approvers to the call's own rights, by the one approver rule", () => {
    const call = { toolName: 'deleteFile', inputDigest: 'digest-a' };
    const onlyBo = { ...call, rights: { approvers: ['bo'], allowSelfApproval: true, quorum: 1 } };
    expect(planCoverProblem(entry, onlyBo, ['ana'])).toContain('"ana" may not decide');
    expect(planCoverProblem(entry, onlyBo, ['bo'])).toBeUndefined();
    const two = { ...call, rights: { allowSelfApproval: true, quorum: 2 } };
    expect(planCoverProblem(entry, two, ['ana'])).toBe('the call needs 2 approvers; the plan had 1');
    expect(planCoverProblem(entry, two, ['ana', 'bo'])).toBeUndefined();
    const notOwn = { ...call, rights: { allowSelfApproval: false, quorum: 1, requester: 'ana' } };
    expect(planCoverProblem(entry, notOwn, ['ana'])).toContain('requested this call');
    expect(planCoverProblem(entry, { ...call, rights: anyone }, [])).toBeUndefined();
  });
});

describe('approvedPlanText', () => {
  it('tells the model who approved the plan and which calls run without asking', () => {
    expect(
      approvedPlanText(
        [
          { toolName: 'deleteFile', input: { path: 'a.txt' } },
          { toolName: 'deleteFile', input: { path: 'b.txt' } },
        ],
        ['ana'],
      ),
    ).toBe(
      [
        'Plan approved by ana. These calls run once each in this turn without asking:',
        '1. deleteFile {"path":"a.txt"}',
        '2. deleteFile {"path":"b.txt"}',
        'Make them with exactly these arguments. Any other call, a changed argument, or a call made again asks as usual.',
      ].join('\n'),
    );
  });
});
