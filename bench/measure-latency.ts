import type { ApprovalSystem, BenchTurn } from './approval-system';
import { pollUntil, withTimeout } from './async-helpers';
import { nowMs } from './clock';

/** Timings of one turn run on its own. */
export interface TurnTiming {
  /** From just before the start call to the first time the turn answers that it waits for the approval. */
  startToRequestMs: number;
  /** From just before the decision is sent to the moment the tool's activity begins executing. */
  decisionToToolStartMs: number;
  /** When the decision was sent and when the tool began (ms since the epoch), to set beside the turn's history. */
  decidedAtMs: number;
  toolStartedAtMs: number;
}

/** Limits of one turn. */
export interface TurnLimits {
  /** How often to ask whether the turn waits yet. */
  pollMs: number;
  /** How long one step (waiting, tool start, end) may take. */
  stepTimeoutMs: number;
}

/**
 * Runs one turn through its approval with nothing else going on: start, wait until it asks, approve,
 * wait for the tool to start and the turn to end.
 */
export async function runTimedTurn(
  system: ApprovalSystem,
  key: string,
  limits: TurnLimits,
): Promise<{ turn: BenchTurn; timing: TurnTiming }> {
  const started = nowMs();
  const turn = await system.start(key);
  const approvalId = await waitForApprovalRequest(system, turn, limits);
  const requested = nowMs();
  const toolStart = system.worker.toolStarted(key, limits.stepTimeoutMs);
  const decided = nowMs();
  await withTimeout(system.approve(turn, approvalId), limits.stepTimeoutMs, `approving ${turn.workflowId}`);
  const toolStartedAt = await toolStart;
  await withTimeout(system.finished(turn), limits.stepTimeoutMs, `the end of ${turn.workflowId}`);
  return {
    turn,
    timing: {
      startToRequestMs: requested - started,
      decisionToToolStartMs: toolStartedAt - decided,
      decidedAtMs: decided,
      toolStartedAtMs: toolStartedAt,
    },
  };
}

/** Polls until the turn waits for its approval; resolves with the approvalId. `onPoll` is told of every poll. */
export function waitForApprovalRequest(
  system: ApprovalSystem,
  turn: BenchTurn,
  limits: TurnLimits,
  onPoll: () => void = () => undefined,
): Promise<string> {
  return pollUntil(() => (onPoll(), system.pendingApproval(turn)), {
    intervalMs: limits.pollMs,
    timeoutMs: limits.stepTimeoutMs,
    what: `waiting for the approval request of ${turn.workflowId}`,
  });
}

/** Runs `count` timed turns one after another. */
export async function measureLatency(
  system: ApprovalSystem,
  count: number,
  options: { keyPrefix: string; limits: TurnLimits; progress: (done: number) => void },
): Promise<{ turns: BenchTurn[]; timings: TurnTiming[] }> {
  const turns: BenchTurn[] = [];
  const timings: TurnTiming[] = [];
  for (let index = 0; index < count; index++) {
    const { turn, timing } = await runTimedTurn(system, `[${options.keyPrefix}-${index}]`, options.limits);
    turns.push(turn);
    timings.push(timing);
    options.progress(index + 1);
  }
  return { turns, timings };
}

/** What {@link measureInterleaved} measured for one system: its turns and timings, or why it stopped. */
export type InterleavedLatency = { turns: BenchTurn[]; timings: TurnTiming[] } | { error: string };

/**
 * Runs `count` timed turns per system, one turn at a time, alternating the systems turn by turn (and which goes
 * first), so that a server or machine that speeds up or slows down during the run weighs on both alike. A system
 * whose turn fails stops there; the others go on.
 */
export async function measureInterleaved(
  systems: readonly ApprovalSystem[],
  count: number,
  options: { keyPrefix: (system: ApprovalSystem) => string; limits: TurnLimits; progress: (done: number) => void },
): Promise<Map<ApprovalSystem, InterleavedLatency>> {
  const results = new Map<ApprovalSystem, InterleavedLatency>(
    systems.map((system) => [system, { turns: [], timings: [] }]),
  );
  for (let index = 0; index < count; index++) {
    // Each system goes first in turn.
    const ordered = systems.map((_, place) => systems[(place + index) % systems.length] as ApprovalSystem);
    for (const system of ordered) {
      const result = results.get(system);
      if (!result || 'error' in result) continue;
      try {
        const { turn, timing } = await runTimedTurn(system, `[${options.keyPrefix(system)}-${index}]`, options.limits);
        result.turns.push(turn);
        result.timings.push(timing);
      } catch (error) {
        results.set(system, { error: error instanceof Error ? error.message : String(error) });
      }
    }
    options.progress(index + 1);
  }
  return results;
}
