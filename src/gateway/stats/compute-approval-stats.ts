import { readTurnRecords, type TurnRecords } from '../../client/read-turn-records';
import type { GatewayContext } from '../gateway-context';
import { aggregateApprovalStats, type ApprovalStats } from './approval-stats';

/** The window when none is asked for. */
export const defaultStatsWindowMs = 7 * 86_400_000;
/** Turns one answer reads when no limit is asked for, and the most it may ask for. */
export const defaultStatsTurnLimit = 200;
export const maximumStatsTurnLimit = 1000;

/** A window of approval history as the gateway reads it. */
export interface StatsWindow {
  since: Date;
  until: Date;
  maxTurns: number;
}

/**
 * The turns of a window, as Temporal's visibility lists them (at most `maxTurns`), each read from its result or its
 * state query within the gateway's listing limits: what the statistics and the suggestions are made from.
 */
export function readWindowRecords(
  context: Pick<GatewayContext, 'tollgate' | 'listing'>,
  window: StatsWindow,
): Promise<TurnRecords> {
  return readTurnRecords(context.tollgate, window.since, {
    maxTurns: window.maxTurns,
    ...(context.listing.concurrency !== undefined && { concurrency: context.listing.concurrency }),
    ...(context.listing.perTurnTimeoutMs !== undefined && { perTurnTimeoutMs: context.listing.perTurnTimeoutMs }),
  });
}

/**
 * Approval statistics of a window, as `GET /v1/approvals/stats` and the inbox's chart show them: the turns Temporal's
 * visibility lists (at most `maxTurns`) and the gateway audit's refused attempts. `records` reuses a reading already
 * made (the inbox reads once for its chart and its suggestions).
 */
export async function computeApprovalStats(
  context: Pick<GatewayContext, 'tollgate' | 'listing' | 'audit'>,
  window: StatsWindow,
  records?: Promise<TurnRecords>,
): Promise<ApprovalStats> {
  const [history, attempts] = await Promise.all([
    records ?? readWindowRecords(context, window),
    // Only the window's attempts: a shared audit is read from the window's start, not from its beginning.
    context.audit.read({ since: window.since }),
  ]);
  return aggregateApprovalStats({ since: window.since, until: window.until, attempts, ...history });
}
