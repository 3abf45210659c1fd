import { inputDigestOf, type PendingToolApproval, type PlannedToolCall } from '../../../src/protocol';
import { ApprovalBook } from '../../../src/workflows/approvals/approval-book';
import { ApprovedPlans } from '../../../src/workflows/turn/approved-plans';

const now = new Date('2026-11-27T10:00:00.000Z');
let counter = 0;

/** A call that asks, as the model step planned it, and its pending approval recorded in `book`. */
function asking(
  book: ApprovalBook,
  toolName: string,
  input: unknown,
  rights?: { approvers?: string[]; quorum: number },
) {
  counter += 1;
  const approvalId = `ap-${counter}`;
  const call = { type: 'tool-call' as const, toolCallId: `call-${counter}`, toolName, input };
  const full = rights && { allowSelfApproval: true, ...rights };
  const plan: PlannedToolCall = {
    kind: 'ask',
    call,
    executor: 'worker',
    approval: { approvalId, inputDigest: inputDigestOf(input), onExpire: 'deny', ...(full && { rights: full }) },
  };
  const pending: PendingToolApproval = {
    approvalId,
    toolCallId: call.toolCallId,
    toolName,
    input,
    requestedAt: now.toISOString(),
    step: 2,
    inputDigest: inputDigestOf(input),
  };
  book.request(pending, full);
  return { plan, pending };
}

/** A book with an approved plan of `calls` (approved by ana), adopted by `plans`. */
function approvedPlan(calls: Array<{ toolName: string; input: unknown }>) {
  const book = new ApprovalBook('turn-1', () => now);
  const plans = new ApprovedPlans();
  const input = { calls };
  const proposal = asking(book, 'proposePlan', input);
  const plan = {
    ...proposal.plan,
    proposal: calls.map((call) => ({ toolName: call.toolName, inputDigest: inputDigestOf(call.input) })),
  } as Extract<PlannedToolCall, { kind: 'ask' }>;
  const { outcome: _outcome, ...decision } = book.apply(
    { approvalId: proposal.pending.approvalId, approved: true, approver: 'ana' },
    'update',
    now,
  );
  const output = plans.adopt(plan, decision);
  return { book, plans, output, planApprovalId: proposal.pending.approvalId };
}

describe('ApprovedPlans', () => {
  const a = { toolName: 'deleteFile', input: { path: 'a.txt' } };
  const b = { toolName: 'deleteFile', input: { path: 'b.txt' } };

  it('tells the model which calls the plan covers', () => {
    const { output } = approvedPlan([a, b]);
    expect(output).toEqual({
      type: 'text',
      value: expect.stringContaining('1. deleteFile {"path":"a.txt"}\n2. deleteFile {"path":"b.txt"}'),
    });
  });

  it('decides each planned call once, naming the plan; an off-plan call and a repeat are left to ask', () => {
    const { book, plans, planApprovalId } = approvedPlan([a, b]);
    const first = asking(book, a.toolName, a.input);
    expect(plans.cover(book, first.plan, first.pending, now)).toBe(true);
    expect(book.decisionOf(first.pending.approvalId)).toMatchObject({
      decision: 'approved',
      via: 'plan',
      approver: 'ana',
      plan: { approvalId: planApprovalId, approvedBy: ['ana'] },
      reason: `Approved by plan ${planApprovalId} (approved by ana), call 1 of 2.`,
    });
    const offPlan = asking(book, 'deleteFile', { path: 'c.txt' });
    expect(plans.cover(book, offPlan.plan, offPlan.pending, now)).toBe(false);
    const otherTool = asking(book, 'writeFile', a.input);
    expect(plans.cover(book, otherTool.plan, otherTool.pending, now)).toBe(false);
    const repeat = asking(book, a.toolName, a.input);
    expect(plans.cover(book, repeat.plan, repeat.pending, now)).toBe(false);
    expect(book.decisionOf(repeat.pending.approvalId)).toBeUndefined();
    const second = asking(book, b.toolName, b.input);
    expect(plans.cover(book, second.plan, second.pending, now)).toBe(true);
  });

  it("covers a call only where the plan's approver may decide it under the call's own rights", () => {
    const { book, plans } = approvedPlan([a]);
    const narrowed = asking(book, a.toolName, a.input, { approvers: ['bo'], quorum: 1 });
    expect(plans.cover(book, narrowed.plan, narrowed.pending, now)).toBe(false);
    const quorum = asking(book, a.toolName, a.input, { quorum: 2 });
    expect(plans.cover(book, quorum.plan, quorum.pending, now)).toBe(false);
    const allowed = asking(book, a.toolName, a.input, { approvers: ['ana'], quorum: 1 });
    expect(plans.cover(book, allowed.plan, allowed.pending, now)).toBe(true);
  });

  it('carries its entries, used or not, into the run a turn continues as', () => {
    const { book, plans } = approvedPlan([a, b]);
    const first = asking(book, a.toolName, a.input);
    plans.cover(book, first.plan, first.pending, now);
    const next = new ApprovedPlans();
    next.restore(plans.snapshot());
    const repeat = asking(book, a.toolName, a.input);
    expect(next.cover(book, repeat.plan, repeat.pending, now)).toBe(false);
    const second = asking(book, b.toolName, b.input);
    expect(next.cover(book, second.plan, second.pending, now)).toBe(true);
  });
});
