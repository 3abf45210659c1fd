import type { PendingToolApproval } from '../../protocol';
import { readTurnPendingApprovals } from '../guards/read-turn-pending-approvals';

/** The parts of a pending approval that never change while it waits (its votes do). */
function fixedPart({ votes: _votes, ...fixed }: PendingToolApproval): string {
  // Safe: the entry passed readTurnPendingApprovals, so it is bounded in depth and size.
  return JSON.stringify(fixed);
}

/** What a conversation showed of its running turn, carried over when it continues as new. */
export interface ConversationPendingViewSnapshot {
  list: PendingToolApproval[];
  shown: Array<[string, string]>;
  disputed: string[];
}

/**
 * What a conversation shows of its running turn's pending approvals, from the turn's `turnPendingApprovals`
 * signals. Only a signal in the exact shape the turn sends, for the running turn, is taken (anything else is
 * counted); and what a person was shown cannot be rewritten: an approval listed again with another tool,
 * arguments or rules than it was first listed with is disputed, and no longer shown here at all (the turn's own
 * `pendingToolApprovals` query, which no sender can write, still lists it).
 */
export class ConversationPendingView {
  private turnId: string | undefined;
  private list: PendingToolApproval[] = [];
  private readonly shown = new Map<string, string>();
  private readonly disputed = new Set<string>();
  private refused = 0;

  /** Starts showing `turnId`'s approvals (none yet). */
  startTurn(turnId: string): void {
    this.turnId = turnId;
    this.list = [];
    this.shown.clear();
    this.disputed.clear();
  }

  /** Shows `turnId`'s approvals as an earlier run of the conversation showed them. */
  resumeTurn(turnId: string, snapshot: unknown): void {
    this.startTurn(turnId);
    const carried = snapshot as Partial<ConversationPendingViewSnapshot> | undefined;
    if (!carried || !Array.isArray(carried.list) || !Array.isArray(carried.shown) || !Array.isArray(carried.disputed)) {
      return;
    }
    this.list = carried.list;
    for (const [approvalId, fixed] of carried.shown) this.shown.set(approvalId, fixed);
    for (const approvalId of carried.disputed) this.disputed.add(approvalId);
  }

  /** What a conversation that continues as new carries. */
  snapshot(): ConversationPendingViewSnapshot {
    return { list: this.list, shown: [...this.shown], disputed: [...this.disputed] };
  }

  /** No turn runs: nothing is shown and no signal is taken. */
  endTurn(): void {
    this.turnId = undefined;
    this.list = [];
    this.shown.clear();
    this.disputed.clear();
  }

  /** Takes a `turnPendingApprovals` signal if it keeps the rules; never throws on what a sender wrote. */
  receive(payload: unknown): void {
    const read = readTurnPendingApprovals(payload, this.turnId);
    if ('invalid' in read) {
      this.refused += 1;
      return;
    }
    let rewrites = false;
    for (const approval of read.pending) {
      const fixed = fixedPart(approval);
      const first = this.shown.get(approval.approvalId);
      if (first === undefined) this.shown.set(approval.approvalId, fixed);
      else if (first !== fixed) {
        this.disputed.add(approval.approvalId);
        rewrites = true;
      }
    }
    if (rewrites) this.refused += 1;
    this.list = read.pending.filter(({ approvalId }) => !this.disputed.has(approvalId));
  }

  /** The running turn's pending approvals as last taken. */
  pending(): PendingToolApproval[] {
    return this.list;
  }

  /** Signals refused so far in this run. */
  refusedCount(): number {
    return this.refused;
  }
}
