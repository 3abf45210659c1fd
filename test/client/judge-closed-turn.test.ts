import { judgeDecisionsOnClosedTurn, type ClosedTurnRecord } from '../../src/client';
import type { PendingToolApproval, ToolApprovalAuditEntry } from '../../src/protocol';

const workflowId = 'turn-closed-1';

function approval(approvalId: string, extra: Partial<PendingToolApproval> = {}): PendingToolApproval {
  return {
    approvalId,
    toolCallId: `${approvalId}-call`,
    toolName: 'writeFile',
    input: { path: 'a.txt' },
    requestedAt: '2026-03-01T10:00:00.000Z',
    step: 1,
    inputDigest: `digest-of-${approvalId}`,
    ...extra,
  };
}

function decided(
  approvalId: string,
  decision: ToolApprovalAuditEntry['decision'],
  extra: Partial<ToolApprovalAuditEntry> = {},
): ToolApprovalAuditEntry {
  return {
    ...approval(approvalId),
    decision,
    approver: 'ana',
    decidedAt: '2026-03-01T10:05:00.000Z',
    via: 'update',
    ...extra,
  };
}

/** A turn that approved a.1, denied a.2, let a.3 expire, and halted with a.4 still waiting. */
const record: ClosedTurnRecord = {
  status: 'awaiting-approval',
  audit: [
    decided('a.1', 'approved'),
    decided('a.2', 'denied', { reason: 'not today' }),
    decided('a.3', 'expired', { approver: undefined, via: 'timeout' }),
    decided('a.5', 'approved', { approvers: ['ana'] }),
  ],
  pending: [approval('a.4')],
};

function refusalOf(run: () => unknown): { code?: string; approvalId?: string; message?: string } {
  try {
    run();
  } catch (error) {
    return error as { code?: string; approvalId?: string; message?: string };
  }
  throw new Error('expected a refusal');
}

describe('judgeDecisionsOnClosedTurn', () => {
  it('answers a retried decision with what the turn recorded, marked as a repeat', () => {
    expect(
      judgeDecisionsOnClosedTurn(
        workflowId,
        [
          { approvalId: 'a.1', approved: true, approver: 'bob' },
          { approvalId: 'a.2', approved: false },
        ],
        record,
      ),
    ).toEqual([
      { ...decided('a.1', 'approved'), outcome: 'repeat' },
      { ...decided('a.2', 'denied', { reason: 'not today' }), outcome: 'repeat' },
    ]);
  });

  it('refuses a conflicting decision: the first decision wins', () => {
    const refusal = refusalOf(() =>
      judgeDecisionsOnClosedTurn(workflowId, [{ approvalId: 'a.2', approved: true, approver: 'bob' }], record),
    );
    expect(refusal).toMatchObject({ name: 'ApprovalDecisionError', code: 'conflict', approvalId: 'a.2', workflowId });
    expect(refusal.message).toMatch(/already denied by ana .*the first decision wins/);
  });

  it('refuses a decision on an approval that expired', () => {
    expect(
      refusalOf(() => judgeDecisionsOnClosedTurn(workflowId, [{ approvalId: 'a.3', approved: true }], record)),
    ).toMatchObject({ code: 'expired', message: expect.stringMatching(/expired at 2026-03-01T10:05:00.000Z/) });
  });

  it('refuses an approval the turn never asked for', () => {
    expect(
      refusalOf(() => judgeDecisionsOnClosedTurn(workflowId, [{ approvalId: 'zz.9', approved: true }], record)),
    ).toMatchObject({ code: 'unknown-approval', approvalId: 'zz.9' });
  });

  it('says the turn takes no more decisions when it ended with the approval still waiting', () => {
    expect(
      refusalOf(() => judgeDecisionsOnClosedTurn(workflowId, [{ approvalId: 'a.4', approved: true }], record)),
    ).toMatchObject({
      code: 'turn-closed',
      approvalId: 'a.4',
      message: expect.stringMatching(/ended \(awaiting-approval\) without a decision on "a\.4".*new turn/),
    });
  });

  it('refuses someone off the approver list before telling them what was decided', () => {
    expect(
      refusalOf(() =>
        judgeDecisionsOnClosedTurn(workflowId, [{ approvalId: 'a.5', approved: true, approver: 'eve' }], record),
      ),
    ).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/"eve" may not decide/) });
  });

  it('refuses a batch that both approves and denies one approval', () => {
    expect(
      refusalOf(() =>
        judgeDecisionsOnClosedTurn(
          workflowId,
          [
            { approvalId: 'a.1', approved: true },
            { approvalId: 'a.1', approved: false },
          ],
          record,
        ),
      ),
    ).toMatchObject({ code: 'conflict', message: expect.stringMatching(/both approves and denies/) });
  });
});
