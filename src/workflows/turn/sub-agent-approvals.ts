import type { PendingToolApproval } from '../../protocol';
import { workflowIdOfApproval } from '../../protocol/approval-id';
import { readTurnPendingApprovals } from '../guards/read-turn-pending-approvals';

/**
 * What a turn's running sub-agents wait for, as each last said (turn revision 14): every child turn signals its
 * parent `turnPendingApprovals` whenever its list changes, and its list holds its own sub-agents' too, so the top
 * turn knows the whole tree's. Only a running child's signal is taken, each read by `readTurnPendingApprovals`
 * (bounded, shape-checked, every approval the child's own or under it); what a child said leaves when it ends.
 */
export class SubAgentApprovals {
  private readonly lists = new Map<string, PendingToolApproval[]>();
  /** The turn's own agent tool call that started each running sub-agent. */
  private readonly calls = new Map<string, string>();
  /** Signals refused: not from a running sub-agent, or not well formed. */
  refused = 0;
  /** Counts every change to what `pending` returns, so the turn's details follow it (TurnVisibilitySource.version). */
  changes = 0;

  /**
   * A sub-agent with this workflow id starts, for the turn's agent tool call `toolCallId`: its signals are taken until
   * it ends, and what it lists is marked with that call (`agentToolCallId`).
   */
  started(workflowId: string, toolCallId?: string): void {
    this.lists.set(workflowId, []);
    if (toolCallId !== undefined) this.calls.set(workflowId, toolCallId);
  }

  /** The sub-agent ended; returns whether it had listed anything (which now leaves the turn's list). */
  ended(workflowId: string): boolean {
    const had = (this.lists.get(workflowId)?.length ?? 0) > 0;
    this.lists.delete(workflowId);
    this.calls.delete(workflowId);
    if (had) this.changes += 1;
    return had;
  }

  /** How many running sub-agents list nothing waiting: they still work, and may yet ask. */
  working(): number {
    return [...this.lists.values()].filter((list) => list.length === 0).length;
  }

  /** Workflow ids of the running sub-agents. */
  running(): string[] {
    return [...this.lists.keys()];
  }

  /** Takes a `turnPendingApprovals` signal from a running sub-agent; returns whether its list changed. */
  receive(payload: unknown): boolean {
    const turnId = (payload as { turnId?: unknown } | null | undefined)?.turnId;
    const from = typeof turnId === 'string' && this.lists.has(turnId) ? turnId : undefined;
    const read = readTurnPendingApprovals(payload, from);
    if ('invalid' in read || from === undefined) {
      this.refused += 1;
      return false;
    }
    const before = keyOf(this.lists.get(from) ?? []);
    this.lists.set(from, read.pending);
    const changed = keyOf(read.pending) !== before;
    if (changed) this.changes += 1;
    return changed;
  }

  /**
   * What the running sub-agents wait for, in the order they started, each marked with the turn's own agent tool call
   * it waits under (a value only: the commands a turn issues are the same).
   */
  pending(): PendingToolApproval[] {
    return [...this.lists].flatMap(([workflowId, list]) => {
      const agentToolCallId = this.calls.get(workflowId);
      return agentToolCallId === undefined ? list : list.map((approval) => ({ ...approval, agentToolCallId }));
    });
  }

  /** Whether the sub-agent with this workflow id is still running. */
  isRunning(workflowId: string): boolean {
    return this.lists.has(workflowId);
  }

  /** The running sub-agent (this turn's own child) whose list holds `approvalId`: it, or one under it, waits for it. */
  listerOf(approvalId: string): string | undefined {
    for (const [workflowId, list] of this.lists) {
      if (list.some((approval) => approval.approvalId === approvalId)) return workflowId;
    }
    return undefined;
  }

  /** The workflow that waits for `approvalId` when one of the running sub-agents listed it. */
  holderOf(approvalId: string): string | undefined {
    for (const list of this.lists.values()) {
      if (list.some((approval) => approval.approvalId === approvalId)) return workflowIdOfApproval(approvalId);
    }
    return undefined;
  }
}

function keyOf(pending: readonly PendingToolApproval[]): string {
  return pending.map((approval) => `${approval.approvalId}:${approval.votes?.length ?? 0}`).join(',');
}
