import type { SubAgentDecisionsAnswer } from '../definitions';
import { readSubAgentDecisionsAnswer } from '../guards/read-sub-agent-decisions';

/**
 * The answers a turn waits for from its sub-agents to updates it passed on (turn revision 17), by request id: an
 * answer is taken only for a request the turn is waiting on, once, bounded and shape-checked
 * (`readSubAgentDecisionsAnswer`); anything else is refused with a reason, which the turn records as ignored.
 */
export class SubAgentDecisionAnswers {
  private readonly awaited = new Map<string, SubAgentDecisionsAnswer | undefined>();
  /** Answers refused: malformed, for no request the turn waits on, or a second answer to one. */
  refused = 0;

  /** The turn sent request `requestId` and waits for its answer. */
  expect(requestId: string): void {
    this.awaited.set(requestId, undefined);
  }

  /** Takes a `subAgentDecisionsAnswer` signal; returns why it was refused, or undefined when it was taken. */
  receive(payload: unknown): string | undefined {
    const read = readSubAgentDecisionsAnswer(payload);
    const refusal =
      'invalid' in read
        ? read.invalid
        : !this.awaited.has(read.requestId)
          ? 'it answers no update this turn waits on'
          : this.awaited.get(read.requestId) !== undefined
            ? 'the update was answered already'
            : undefined;
    if (refusal !== undefined || 'invalid' in read) {
      this.refused += 1;
      return refusal;
    }
    this.awaited.set(read.requestId, read);
    return undefined;
  }

  /** The answer to `requestId`, once it came. */
  answerOf(requestId: string): SubAgentDecisionsAnswer | undefined {
    return this.awaited.get(requestId);
  }

  /** The turn no longer waits for `requestId`: a late answer is refused. */
  forget(requestId: string): void {
    this.awaited.delete(requestId);
  }
}
