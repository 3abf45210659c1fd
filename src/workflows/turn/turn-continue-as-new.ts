import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { AgentTurnInput, AgentTurnResult } from '../../protocol';
import { turnRevisions } from '../../protocol/turn-plan';
import { historyIsLarge } from '../history-is-large';
import type { SettlingCalls, TurnCarryOver } from './turn-carry-over';
import { type Settled, type Settling, type TurnState, unsettled, withNextStep } from './turn-state';

/** Whether this turn continues as new when its history grows large (turns planned from revision 6). */
export function continuesAsNewWhenLarge(turn: TurnState): boolean {
  return turn.revision() >= turnRevisions.continuesAsNewWhenLarge;
}

/**
 * Settles `all` unless the turn's history grows large first (from turn revision 6): then, once nothing runs
 * and the calls only wait (for decisions or a client's output), the turn continues as new with all it holds.
 */
export async function unlessContinuingAsNew(
  turn: TurnState,
  all: Promise<Settled[]>,
  settling: Settling,
): Promise<Settled[]> {
  let finished = false;
  const done = all.finally(() => (finished = true));
  const large = condition(() => finished || (historyIsLarge() && onlyWaits(turn, settling)));
  await Promise.race([done, large]);
  if (!finished) await continueTurnAsNew(turn, settling);
  return all;
}

/**
 * Beside `all` (from turn revision 15, `settleCalls`): once the turn's history is large and its calls only wait, the
 * turn continues as new; once they are all settled, `all`.
 */
export function continueAsNewWhenLarge(
  turn: TurnState,
  settling: Settling,
  all: Promise<Settled[]>,
): Promise<Settled[]> {
  const settled = () => settling.results.every((result) => result !== unsettled);
  return condition(() => settled() || (historyIsLarge() && onlyWaits(turn, settling))).then(() =>
    settled() ? all : continueTurnAsNew(turn, settling),
  );
}

/**
 * From turn revision 18 (`settleWaitingCalls`), the one wait of a step: until its calls are all settled (their results,
 * in order), one of them failed (its error), or the turn's history is large while they only wait (it continues as new).
 */
export function whenSettledOrLarge(
  turn: TurnState,
  settling: Settling,
  failure: () => { error: unknown } | undefined,
): Promise<Settled[]> {
  const settled = () => settling.results.every((result) => result !== unsettled);
  return condition(() => failure() !== undefined || settled() || (historyIsLarge() && onlyWaits(turn, settling))).then(
    () => {
      const failed = failure();
      if (failed) throw failed.error;
      return settled() ? (settling.results.slice() as Settled[]) : continueTurnAsNew(turn, settling);
    },
  );
}

/**
 * From turn revision 19 (`StepCalls`), the turn's watch beside its calls' one wait: its history is large while they
 * only wait, so it continues as new, carrying them.
 */
export function largeWhileOnlyWaiting(turn: TurnState, settling: Settling): boolean {
  return historyIsLarge() && onlyWaits(turn, settling);
}

/**
 * True when nothing of the turn runs (no tool, notice or handler) and every call not settled waits for a person:
 * for a decision, or for a client's output. Read from state, never from where a promise has got to.
 */
function onlyWaits(turn: TurnState, settling: Settling): boolean {
  if (!allHandlersFinished() || !turn.notices.quiet()) return false;
  return settling.plans.every((plan, index) => {
    const result = settling.results[index];
    if (result === withNextStep) return false;
    if (result !== unsettled) return true;
    const approvalId = settling.opened[index];
    if ((plan.kind === 'ask' || plan.kind === 'provider') && approvalId !== undefined) {
      if (!turn.approvals.book.decisionOf(approvalId)) return true;
    }
    return plan.kind !== 'reject' && plan.kind !== 'provider' && turn.outputs.isAwaiting(plan.call.toolCallId);
  });
}

/** Continues as new, carrying everything: the new run takes up the calls where this one leaves them. */
export async function continueTurnAsNew(turn: TurnState, settling: Settling): Promise<never> {
  const info = workflowInfo();
  turn.events.note('turn-continued-as-new', turn.steps, {
    detail: `history of ${info.historyLength} events and ${info.historySize} bytes`,
  });
  const carried: TurnCarryOver = {
    version: 1,
    settings: turn.settings as NonNullable<TurnState['settings']>,
    steps: turn.steps,
    text: turn.text,
    messages: turn.messages,
    transcript: turn.transcript,
    approvals: turn.approvals.snapshot(),
    events: turn.events.snapshot(),
    outputs: turn.outputs.snapshot(),
    notices: turn.notices.snapshot(),
    settling: {
      kind: settling.kind,
      plans: settling.plans,
      opened: settling.opened.map((approvalId) => approvalId ?? null),
      results: settling.results.map((result) =>
        result === unsettled ? null : result === undefined || result === withNextStep ? {} : { part: result },
      ),
    },
    continuations: turn.continuations + 1,
    ...(turn.plans.snapshot().length > 0 && { plans: turn.plans.snapshot() }),
    // The tree's step count and the next sub-agent's id go on (a continued turn starts from zero otherwise).
    ...(turn.revision() >= turnRevisions.subAgentApprovalsShown &&
      turn.subAgentsStarted > 0 && { subAgents: { steps: turn.subAgentSteps, started: turn.subAgentsStarted } }),
  };
  return continueAsNew<(input: AgentTurnInput, carried?: TurnCarryOver) => Promise<AgentTurnResult>>(
    turn.input,
    carried,
  );
}

/** Takes up what an earlier run of this turn carried over; returns the calls it was settling. */
export function takeUp(turn: TurnState, carried: TurnCarryOver): SettlingCalls {
  turn.settings = carried.settings;
  turn.trustDecisions(carried.settings);
  turn.steps = carried.steps;
  turn.text = carried.text;
  turn.messages.push(...carried.messages);
  turn.transcript = carried.transcript;
  turn.continuations = carried.continuations;
  turn.subAgentSteps = carried.subAgents?.steps ?? 0;
  turn.subAgentsStarted = carried.subAgents?.started ?? 0;
  turn.events.restore(carried.events);
  turn.approvals.restore(carried.approvals);
  turn.outputs.restore(carried.outputs);
  if (carried.plans) turn.plans.restore(carried.plans);
  for (const notice of carried.notices) {
    const { approvalId } = notice.approval;
    turn.notices.resume(notice, () => turn.approvals.book.decisionOf(approvalId));
  }
  return carried.settling;
}

/** The calls an earlier run was settling, as this run settles them. */
export function settlingOf(carried: SettlingCalls): Settling {
  return {
    kind: carried.kind,
    plans: carried.plans,
    opened: carried.opened.map((approvalId) => approvalId ?? undefined),
    results: carried.results.map((result) => (result === null ? unsettled : result.part)),
  };
}
