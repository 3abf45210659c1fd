import type { OperatorPolicy } from '../../src/policy';
import { askingOf, replayPolicy, type ReplayTurn } from '../../src/policy/replay-policy';
import type { ToolApprovalAuditEntry } from '../../src/protocol';

const since = new Date('2026-03-01T00:00:00.000Z');
const until = new Date('2026-03-31T00:00:00.000Z');
let count = 0;

function entry(
  toolName: string,
  decision: ToolApprovalAuditEntry['decision'],
  approver: string | undefined,
  extra: Partial<ToolApprovalAuditEntry> & { afterSeconds?: number } = {},
): ToolApprovalAuditEntry {
  count += 1;
  const { afterSeconds = 20, ...rest } = extra;
  const requestedAt = new Date(Date.parse('2026-03-05T09:00:00.000Z') + count * 60_000).toISOString();
  return {
    approvalId: `a${count}`,
    toolCallId: `c${count}`,
    toolName,
    input: { n: count },
    requestedAt,
    step: 1,
    decision,
    ...(approver !== undefined && { approver }),
    decidedAt: new Date(Date.parse(requestedAt) + afterSeconds * 1000).toISOString(),
    via: decision === 'expired' ? 'timeout' : 'update',
    ...rest,
  };
}

function replay(candidate: OperatorPolicy, turns: ReplayTurn[]) {
  return replayPolicy({ candidate, since, until, turns, truncated: false, unansweredTurns: 0 });
}

describe('replayPolicy', () => {
  it('finds a denied call the candidate would run without asking, and the approvals it would save', () => {
    const turns: ReplayTurn[] = [
      {
        workflowId: 'turn-1',
        audit: [
          entry('fs__write_file', 'approved', 'ana', { afterSeconds: 30 }),
          entry('fs__write_file', 'approved', 'bob', { afterSeconds: 90 }),
          entry('fs__write_file', 'denied', 'bob', { reason: 'not in src/' }),
          entry('fs__write_file', 'expired', undefined),
          entry('deploy', 'approved', 'ana'),
        ],
        calls: [],
      },
    ];
    const result = replay({ mcpServers: { fs: { tools: { write_file: { needsApproval: false } } } } }, turns);
    expect(result.wouldRunDenied).toEqual([
      expect.objectContaining({
        workflowId: 'turn-1',
        toolName: 'fs__write_file',
        decision: 'denied',
        approver: 'bob',
        reason: 'not in src/',
        because: 'mcpServers.fs.tools.write_file.needsApproval runs it without asking',
      }),
    ]);
    expect(result.approvalsSaved).toEqual({
      count: 2,
      totalSecondsToDecide: 120,
      byTool: [{ tool: 'fs__write_file', approved: 2, people: ['ana', 'bob'] }],
    });
    expect(result.wouldRunUndecided).toEqual([expect.objectContaining({ decision: 'expired' })]);
    // deploy is left to its definition: it asks as it did, and was always approved.
    expect(result.alwaysApprovedStillAsked).toEqual([{ tool: 'deploy', approved: 1, people: ['ana'] }]);
    expect(result.approvalsRead).toBe(5);
  });

  it('changes nothing with an empty candidate, and says nothing it cannot know', () => {
    const turns: ReplayTurn[] = [
      {
        workflowId: 'turn-1',
        audit: [entry('deploy', 'approved', 'ana'), entry('deploy', 'denied', 'bob')],
        calls: [],
      },
    ];
    const result = replay({}, turns);
    expect(result).toMatchObject({
      wouldRunDenied: [],
      wouldRunUndecided: [],
      approvalsSaved: { count: 0 },
      alwaysApprovedStillAsked: [],
      newlyAsked: [],
      decidedOtherwise: [],
      autonomousTurnsRefused: [],
      unknown: [],
    });
  });

  it('counts calls made without asking that the candidate would ask about, from the turns’ messages', () => {
    const turns: ReplayTurn[] = [
      {
        workflowId: 'turn-1',
        audit: [entry('writeFile', 'approved', 'ana')],
        calls: [
          { toolCallId: `c${count}`, toolName: 'writeFile' },
          { toolCallId: 'x1', toolName: 'readFile' },
          { toolCallId: 'x2', toolName: 'readFile' },
          { toolCallId: 'x3', toolName: 'glob' },
        ],
      },
      // Its calls were not read: the replay says so.
      { workflowId: 'turn-2', audit: [] },
    ];
    const result = replay({ tools: { readFile: { needsApproval: true } } }, turns);
    expect(result.newlyAsked).toEqual([{ tool: 'readFile', calls: 2 }]);
    expect(result.unknown).toContain(
      'The calls made without asking in 1 turns were not read: calls the candidate would newly ask about may be missing.',
    );
  });

  it('finds decisions its approvers, self-approval, quorum, editors and timeout would not have taken', () => {
    const votes = [{ approver: 'ana', decidedAt: '2026-03-05T10:00:00.000Z' }];
    const turns: ReplayTurn[] = [
      {
        workflowId: 'turn-1',
        requester: 'carol',
        audit: [
          entry('deploy', 'approved', 'eve'),
          entry('deploy', 'approved', 'carol'),
          entry('deploy', 'approved', 'ana', { votes }),
          entry('deploy', 'approved', 'ana', { editedBy: 'ana', editedInput: { n: 0 } }),
          entry('deploy', 'denied', 'ana', { afterSeconds: 7200 }),
        ],
        calls: [],
      },
    ];
    const result = replay(
      { tools: { deploy: { approvers: ['ana', 'carol'], quorum: 1, approvalTimeout: '1h' } } },
      turns,
    );
    expect(result.decidedOtherwise.map((call) => call.because)).toEqual([
      'eve is not among its approvers (ana, carol): it would have waited for one of them.',
      'carol decided their own request, which it does not allow.',
      'ana changed the arguments; it lets nobody edit.',
      'Decided after 2 h; its approvalTimeout (1 h) would have expired it first.',
    ]);
    const quorum = replay({ defaults: { quorum: 2 } }, turns);
    expect(quorum.decidedOtherwise.filter((call) => call.because.includes('needs 2 approvers'))).toHaveLength(4);
    expect(quorum.unknown).toContain(
      "Rules set in a tool's own definition and a turn's own (stricter) rules are not in the records: who may decide is checked against the candidate's rules alone.",
    );
  });

  it('says what the records cannot tell instead of guessing', () => {
    const turns: ReplayTurn[] = [
      {
        workflowId: 'turn-1',
        audit: [
          entry('deploy', 'approved', 'policy', { via: 'policy' }),
          entry('deploy', 'expired', undefined, { afterSeconds: 60 }),
          // No requester on the turn: a self-approval cannot be told.
          entry('deploy', 'approved', 'ana'),
        ],
        calls: [],
      },
      {
        workflowId: 'turn-2',
        audit: [entry('deploy', 'approved', 'auto-approve', { via: 'auto-approve' })],
        calls: [],
      },
    ];
    const result = replayPolicy({
      candidate: { defaults: { approvers: ['ana'], notify: [{ type: 'email', to: ['ops@example.com'] }] } },
      since,
      until,
      turns,
      truncated: true,
      unansweredTurns: 2,
    });
    expect(result.autonomousTurnsRefused).toEqual(['turn-2']);
    expect(result.unknown).toEqual([
      'Only the newest 2 turns of the window were read; older ones were not replayed.',
      '2 turns did not answer in time; their calls were not replayed.',
      "1 calls were decided by the worker's onToolApproval: code the records do not hold, not replayed.",
      '1 calls expired; the candidate would wait longer for them, and whether someone would then have decided is not recorded.',
      '1 decisions are in turns that name no requester: whether they were self-approvals is not known.',
      "Rules set in a tool's own definition and a turn's own (stricter) rules are not in the records: who may decide is checked against the candidate's rules alone.",
      'Not replayed: notify (they change who is told, what expiry does or what may be granted, not what the records show ran).',
    ]);
  });

  it('takes calls a standing grant let through as they were, unless the candidate forbids grants of the tool', () => {
    const granted = () => entry('deploy', 'approved', 'ana', { via: 'grant' as never });
    const turns: ReplayTurn[] = [{ workflowId: 'turn-1', audit: [granted(), granted()], calls: [] }];
    const kept = replay({}, turns);
    expect(kept).toMatchObject({ newlyAsked: [], alwaysApprovedStillAsked: [], approvalsSaved: { count: 0 } });
    expect(kept.unknown).toEqual([
      "2 calls ran under standing grants; grants are people's decisions, not the policy file's, and are taken as they were.",
    ]);
    // `grants: false` is the standing grants' own policy setting; read as the worker will read it.
    const forbidding = { tools: { deploy: { grants: false } } } as unknown as OperatorPolicy;
    expect(replay(forbidding, turns).newlyAsked).toEqual([{ tool: 'deploy', calls: 2 }]);
  });

  it('names settings it does not replay, rather than passing over them', () => {
    const candidate = { defaults: { remindAfter: '1h' }, later: true } as unknown as OperatorPolicy;
    expect(replay(candidate, []).unknown).toContain('Not replayed: later.');
  });

  it('leaves out approvals decided outside the window', () => {
    const old = entry('deploy', 'denied', 'ana', { decidedAt: '2026-02-01T00:00:00.000Z' });
    const result = replay({ tools: {} }, [{ workflowId: 'turn-1', audit: [old], calls: [] }]);
    expect(result.approvalsRead).toBe(0);
  });
});

describe('askingOf', () => {
  it("reads the candidate's needsApproval rules in the worker's order, and nothing else", () => {
    const candidate: OperatorPolicy = {
      tools: { fs__delete: { needsApproval: true } },
      mcpServers: {
        fs: { needsApproval: false, tools: { delete: { needsApproval: false }, 'read file': { needsApproval: true } } },
      },
    };
    expect(askingOf(candidate, 'fs__delete')).toEqual({ asks: true, because: 'tools.fs__delete.needsApproval' });
    expect(askingOf(candidate, 'fs__read_file')).toEqual({
      asks: true,
      because: 'mcpServers.fs.tools.read file.needsApproval',
    });
    expect(askingOf(candidate, 'fs__list')).toEqual({ asks: false, because: 'mcpServers.fs.needsApproval' });
    expect(askingOf(candidate, 'git__log')).toBeUndefined();
    expect(askingOf(candidate, 'deploy')).toBeUndefined();
  });
});
