import type { PendingToolApproval, ToolApprovalAuditEntry } from '../../../src/protocol';
import type { DecisionAttempt } from '../../../src/gateway/decisions/decision-audit';
import { aggregateApprovalStats, percentile } from '../../../src/gateway/stats/approval-stats';

const since = new Date('2026-03-01T00:00:00.000Z');
const until = new Date('2026-03-08T00:00:00.000Z');
let count = 0;

function requested(toolName: string, at = '2026-03-02T10:00:00.000Z'): PendingToolApproval {
  count += 1;
  return { approvalId: `a${count}`, toolCallId: `c${count}`, toolName, input: {}, requestedAt: at, step: 1 };
}

function decided(
  toolName: string,
  decision: ToolApprovalAuditEntry['decision'],
  afterSeconds: number,
  extra: Partial<ToolApprovalAuditEntry> = {},
): ToolApprovalAuditEntry {
  const approval = requested(toolName);
  return {
    ...approval,
    decision,
    decidedAt: new Date(Date.parse(approval.requestedAt) + afterSeconds * 1000).toISOString(),
    via: decision === 'expired' ? 'timeout' : 'update',
    ...extra,
  };
}

function refusal(approver: string, code: string, at = '2026-03-03T00:00:00.000Z'): DecisionAttempt {
  return {
    at,
    approver,
    channel: 'rest',
    approvalId: 'x',
    approved: true,
    outcome: 'refused',
    refusal: { code, detail: code },
  };
}

const base = { since, until, truncated: false, unansweredTurns: 0 };

describe('aggregateApprovalStats', () => {
  it("counts each tool's approved, denied, expired, superseded and pending approvals", () => {
    const stats = aggregateApprovalStats({
      ...base,
      attempts: [],
      turns: [
        {
          audit: [
            decided('deploy', 'approved', 10, { approver: 'ana' }),
            decided('deploy', 'denied', 30, { approver: 'bob', reason: 'no' }),
            decided('deploy', 'expired', 3600),
          ],
          pending: [requested('deploy')],
        },
        {
          audit: [decided('deleteFile', 'denied', 5, { via: 'superseded', reason: 'superseded by a new message' })],
          pending: [],
        },
      ],
    });
    expect(stats.tools).toEqual([
      {
        tool: 'deploy',
        count: 4,
        approved: 1,
        denied: 1,
        expired: 1,
        superseded: 0,
        pending: 1,
        timeToDecisionSeconds: { p50: 10, p95: 30 },
      },
      {
        tool: 'deleteFile',
        count: 1,
        approved: 0,
        denied: 0,
        expired: 0,
        superseded: 1,
        pending: 0,
        timeToDecisionSeconds: { p50: null, p95: null },
      },
    ]);
    expect(stats.turnsRead).toBe(2);
  });

  it('counts a coalesced line of a flood as the refusals it stands for', () => {
    const stats = aggregateApprovalStats({
      ...base,
      attempts: [
        refusal('(unauthenticated)', 'unauthorized'),
        {
          ...refusal('(unauthenticated)', 'unauthorized'),
          coalesced: { count: 41, since: '2026-03-03T00:00:00.000Z' },
        },
      ],
      turns: [],
    });
    expect(stats.refused).toEqual({ total: 42, byCode: { unauthorized: 42 } });
    expect(stats.approvers).toEqual([expect.objectContaining({ approver: '(unauthenticated)', refused: 42 })]);
  });

  it("counts approvers by the decisions they made, a quorum's voters each, and their refused attempts", () => {
    const quorum = decided('deploy', 'approved', 60, {
      approver: 'bob',
      quorum: 2,
      votes: [
        { approver: 'ana', decidedAt: '2026-03-02T10:00:20.000Z' },
        { approver: 'bob', decidedAt: '2026-03-02T10:01:00.000Z' },
      ],
    });
    const stats = aggregateApprovalStats({
      ...base,
      attempts: [
        refusal('eve', 'forbidden'),
        refusal('eve', 'forbidden'),
        refusal('ana', 'conflict'),
        // Outside the window, and not refusals: not counted.
        refusal('eve', 'forbidden', '2026-02-01T00:00:00.000Z'),
        { ...refusal('ana', 'x'), outcome: 'recorded' },
      ],
      turns: [{ audit: [quorum, decided('lookup', 'denied', 4, { approver: 'ana' })], pending: [] }],
    });
    expect(stats.approvers).toEqual([
      {
        approver: 'ana',
        count: 2,
        approved: 1,
        denied: 1,
        refused: 1,
        timeToDecisionSeconds: { p50: 4, p95: 20 },
      },
      { approver: 'bob', count: 1, approved: 1, denied: 0, refused: 0, timeToDecisionSeconds: { p50: 60, p95: 60 } },
      {
        approver: 'eve',
        count: 0,
        approved: 0,
        denied: 0,
        refused: 2,
        timeToDecisionSeconds: { p50: null, p95: null },
      },
    ]);
    expect(stats.refused).toEqual({ total: 3, byCode: { forbidden: 2, conflict: 1 } });
  });

  it('leaves out approvals closed outside the window, decisions nobody was asked for, and repeats', () => {
    const old = decided('deploy', 'approved', 10, { approver: 'ana', decidedAt: '2026-02-20T00:00:00.000Z' });
    const auto = decided('deploy', 'approved', 0, { via: 'auto-approve', approver: 'auto-approve' });
    const policy = decided('deploy', 'denied', 0, { via: 'policy', approver: 'policy' });
    const once = decided('deploy', 'approved', 10, { approver: 'ana' });
    const stats = aggregateApprovalStats({
      ...base,
      attempts: [],
      turns: [{ audit: [old, auto, policy, once, once], pending: [once] }],
    });
    expect(stats.tools).toEqual([expect.objectContaining({ tool: 'deploy', count: 1, approved: 1, pending: 0 })]);
  });

  it('says when the turns read were not all the window held', () => {
    const stats = aggregateApprovalStats({ ...base, truncated: true, unansweredTurns: 2, attempts: [], turns: [] });
    expect(stats).toMatchObject({ truncated: true, unansweredTurns: 2, turnsRead: 0, tools: [], approvers: [] });
    expect(stats.since).toBe('2026-03-01T00:00:00.000Z');
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeUndefined();
  });
});
