import type { PendingToolApproval } from '../../../src/protocol';
import { formatApprovalId } from '../../../src/protocol/approval-id';
import { ConversationPendingView } from '../../../src/workflows/conversation/conversation-pending-view';
import { readTurnPendingApprovals } from '../../../src/workflows/guards/read-turn-pending-approvals';

const turnId = 'chat-1/turn-1';
const approval: PendingToolApproval = {
  approvalId: formatApprovalId(turnId, 'a1'),
  toolCallId: 'call-1',
  toolName: 'deleteFile',
  input: { path: 'a.txt' },
  requestedAt: '2026-01-01T00:00:00.000Z',
  step: 1,
  inputDigest: 'digest',
  quorum: 2,
  votes: [],
};

describe('readTurnPendingApprovals', () => {
  it('reads the exact shape a running turn sends', () => {
    expect(readTurnPendingApprovals({ turnId, pending: [approval] }, turnId)).toEqual({ pending: [approval] });
    expect(readTurnPendingApprovals({ turnId, pending: [] }, turnId)).toEqual({ pending: [] });
  });

  it.each([
    ['null', null],
    ['a string', 'pending'],
    ['a number', 7],
    ['another turn', { turnId: 'chat-1/turn-2', pending: [] }],
    ['an extra field', { turnId, pending: [], from: 'me' }],
    ['a list that is not one', { turnId, pending: { 0: approval } }],
    ['an approval of another workflow', { turnId, pending: [{ ...approval, approvalId: formatApprovalId('x', 'a') }] }],
    ['an unknown field in an entry', { turnId, pending: [{ ...approval, note: 'trust me' }] }],
    ['an entry without its tool name', { turnId, pending: [approval].map(({ toolName: _name, ...rest }) => rest) }],
    ['an approval listed twice', { turnId, pending: [approval, approval] }],
    [
      'a vote with an extra field',
      { turnId, pending: [{ ...approval, votes: [{ approver: 'a', decidedAt: 't', x: 1 }] }] },
    ],
  ])('refuses %s without throwing', (_name, payload) => {
    expect(readTurnPendingApprovals(payload, turnId)).toHaveProperty('invalid');
  });

  it('reads a call whose input was undefined (JSON drops it on the way)', () => {
    const { input: _input, ...withoutInput } = approval;
    expect(readTurnPendingApprovals({ turnId, pending: [withoutInput] }, turnId)).toEqual({ pending: [withoutInput] });
  });

  it('refuses anything while no turn runs', () => {
    expect(readTurnPendingApprovals({ turnId, pending: [] }, undefined)).toEqual({ invalid: 'no turn is running' });
  });

  it('refuses arguments nested 100,000 deep', () => {
    const input = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(readTurnPendingApprovals({ turnId, pending: [{ ...approval, input }] }, turnId)).toEqual({
      invalid: 'the list is nested deeper than 64 levels',
    });
  });
});

describe('ConversationPendingView', () => {
  it('shows the running turn’s list, with votes as they come', () => {
    const view = new ConversationPendingView();
    view.startTurn(turnId);
    view.receive({ turnId, pending: [approval] });
    const voted = { ...approval, votes: [{ approver: 'ana', decidedAt: '2026-01-01T00:01:00.000Z' }] };
    view.receive({ turnId, pending: [voted] });
    expect(view.pending()).toEqual([voted]);
    view.receive({ turnId, pending: [] });
    expect(view.pending()).toEqual([]);
    expect(view.refusedCount()).toBe(0);
  });

  it('never shows other arguments under an approval it has shown, and counts the attempt', () => {
    const view = new ConversationPendingView();
    view.startTurn(turnId);
    view.receive({ turnId, pending: [approval] });
    view.receive({ turnId, pending: [{ ...approval, input: { path: 'harmless.txt' } }] });
    expect(view.pending()).toEqual([]);
    // Not even when the first version is sent again: which of the two is real cannot be told here.
    view.receive({ turnId, pending: [approval] });
    expect(view.pending()).toEqual([]);
    expect(view.refusedCount()).toBe(1);
  });

  it('takes nothing between turns', () => {
    const view = new ConversationPendingView();
    view.startTurn(turnId);
    view.endTurn();
    view.receive({ turnId, pending: [approval] });
    expect(view.pending()).toEqual([]);
    expect(view.refusedCount()).toBe(1);
  });
});
