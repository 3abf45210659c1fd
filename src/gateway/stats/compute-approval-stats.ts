import type { GatewayContext } from '../gateway-context';
import { aggregateApprovalStats, type ApprovalStats } from './approval-stats';
import { readApprovalHistory } from './read-approval-history';

/** The window when none is asked for. */
export const defaultStatsWindowMs = 7 * 86_400_000;
/** Turns one answer reads when no limit is asked for, and the most it may ask for. */
export const defaultStatsTurnLimit = 200;
export const maximumStatsTurnLimit = 1000;

/**
 * Approval statistics of a window, as `GET /v1/approvals/stats` and the inbox's chart show them: the turns Temporal's
 * visibility lists (at most `maxTurns`) and the gateway audit's refused attempts.
 */
export async function computeApprovalStats(
  context: Pick<GatewayContext, 'tollgate' | 'listing' | 'audit'>,
  window: { since: Date; until: Date; maxTurns: number },
): Promise<ApprovalStats> {
  const [history, attempts] = await Promise.all([
    readApprovalHistory(context.tollgate, window.since, {
      maxTurns: window.maxTurns,
      ...(context.listing.concurrency !== undefined && { concurrency: context.listing.concurrency }),
      ...(context.listing.perTurnTimeoutMs !== undefined && { perTurnTimeoutMs: context.listing.perTurnTimeoutMs }),
    }),
    // Only the window's attempts: a shared audit is read from the window's start, not from its beginning.
    context.audit.read({ since: window.since }),
  ]);
  return aggregateApprovalStats({ since: window.since, until: window.until, attempts, ...history });
}
