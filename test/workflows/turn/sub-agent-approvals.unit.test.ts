import { formatPending } from '../../../src/cli/format-turn';
import { approvalRequestEmail } from '../../../src/notifications/email/approval-email';
import { approvalRequestMessage } from '../../../src/notifications/slack/approval-message';
import type { PendingToolApproval } from '../../../src/protocol';
import { formatApprovalId } from '../../../src/protocol/approval-id';
import { toolOnPath } from '../../../src/protocol/tool-on-path';
import { SubAgentApprovals } from '../../../src/workflows/turn/sub-agent-approvals';

const parent = 'turn-1';
const child = `${parent}/reader-1`;

function approval(workflowId: string, unique: string, path?: string[]): PendingToolApproval {
  return {
    approvalId: formatApprovalId(workflowId, unique),
    toolCallId: `call-${unique}`,
    toolName: 'writeFile',
    input: { path: 'notes.md' },
    requestedAt: '2026-11-27T04:00:00.000Z',
    step: 1,
    ...(path && { path }),
  };
}

describe("a turn's view of what its sub-agents wait for", () => {
  it("takes a running sub-agent's list, its own sub-agents' included, and drops it when the sub-agent ends", () => {
    const view = new SubAgentApprovals();
    view.started(child);
    const own = approval(child, 'a', ['reader']);
    const below = approval(`${child}/editor-1`, 'b', ['reader', 'editor']);

    expect(view.receive({ turnId: child, pending: [own, below] })).toBe(true);
    expect(view.pending()).toEqual([own, below]);
    expect(view.holderOf(below.approvalId)).toBe(`${child}/editor-1`);
    // The turn's details are rendered again only when this count moves.
    expect(view.changes).toBe(1);
    expect(view.receive({ turnId: child, pending: [own, below] })).toBe(false);
    expect(view.changes).toBe(1);
    expect(view.ended(child)).toBe(true);
    expect(view.changes).toBe(2);
    expect(view.pending()).toEqual([]);
    expect(view.holderOf(own.approvalId)).toBeUndefined();
  });

  it('refuses what does not come from a running sub-agent, or names approvals outside it, changing nothing', () => {
    const view = new SubAgentApprovals();
    view.started(child);
    const own = approval(child, 'a', ['reader']);
    view.receive({ turnId: child, pending: [own] });

    const refusedPayloads: unknown[] = [
      { turnId: `${parent}/reader-2`, pending: [] },
      { turnId: child, pending: [approval(parent, 'x')] },
      { turnId: child, pending: [approval(`${parent}/reader-10`, 'x')] },
      { turnId: child, pending: [{ ...own, path: 'reader' }] },
      { turnId: child, pending: [{ ...own, path: Array.from({ length: 21 }, () => 'a') }] },
      { turnId: child, pending: [own], extra: true },
      'junk',
      null,
    ];
    for (const payload of refusedPayloads) expect(view.receive(payload)).toBe(false);

    expect(view.refused).toBe(refusedPayloads.length);
    expect(view.pending()).toEqual([own]);
  });

  it("marks each sub-agent's calls with the turn's own agent call that started it, in place of the one below", () => {
    const view = new SubAgentApprovals();
    const second = `${parent}/reader-2`;
    view.started(child, 'agent-call-1');
    view.started(second, 'agent-call-2');
    // The sub-agent marked its own sub-agent's call with its own call; the turn above puts its own instead.
    const below = { ...approval(`${child}/editor-1`, 'b', ['reader', 'editor']), agentToolCallId: 'reader-call-7' };
    view.receive({ turnId: child, pending: [below] });
    view.receive({ turnId: second, pending: [approval(second, 'c', ['reader'])] });

    expect(view.pending().map((entry) => [entry.approvalId, entry.agentToolCallId])).toEqual([
      [below.approvalId, 'agent-call-1'],
      [formatApprovalId(second, 'c'), 'agent-call-2'],
    ]);
    expect(view.receive({ turnId: child, pending: [{ ...below, agentToolCallId: 7 }] })).toBe(false);
  });

  it('reads a call with the path that led to it', () => {
    expect(toolOnPath({ toolName: 'writeFile', path: ['researcher'] })).toBe('researcher → writeFile');
    expect(toolOnPath({ toolName: 'writeFile' })).toBe('writeFile');
    const waiting = approval(child, 'a', ['researcher']);
    const notice = { workflowId: child, approval: waiting, requester: 'ana' };
    expect(approvalRequestMessage(notice, 'request').text).toContain('researcher → writeFile');
    const links = { approve: 'https://x/a', deny: 'https://x/d', expiresAt: new Date('2026-11-28T00:00:00.000Z') };
    expect(approvalRequestEmail(notice, 'request', links).subject).toContain('researcher → writeFile');
    expect(formatPending(waiting)[0]).toContain('researcher → writeFile');
  });
});
