import type { TurnRecords } from '../../client/read-turn-records';
import type { GatewayContext } from '../gateway-context';
import { readWindowRecords, type StatsWindow } from '../stats/compute-approval-stats';
import {
  defaultSuggestionThresholds,
  suggestApprovalRules,
  type ApprovalRuleSuggestion,
  type SuggestionThresholds,
} from './suggest-approval-rules';

/** What `GET /v1/approvals/suggestions` answers. */
export interface ApprovalSuggestions {
  /** Start of the window (ISO 8601). */
  since: string;
  /** When the suggestions were made (ISO 8601). */
  until: string;
  /** Turns whose audits were read. */
  turnsRead: number;
  /** More turns were in the window than one answer reads: the suggestions cover the newest `turnsRead`. */
  truncated: boolean;
  /** Turns that did not answer in time; their approvals are missing. */
  unansweredTurns: number;
  /** The thresholds used. */
  thresholds: SuggestionThresholds;
  /** The busiest first. Nothing here is applied: each is a grant to create or a policy change to make. */
  suggestions: ApprovalRuleSuggestion[];
}

/**
 * Suggested rules of a window: the turns Temporal's visibility lists (at most `maxTurns`), their audits given to
 * {@link suggestApprovalRules}. `records` reuses a reading already made (the inbox reads once for its chart too).
 */
export async function computeApprovalSuggestions(
  context: Pick<GatewayContext, 'tollgate' | 'listing'>,
  window: StatsWindow,
  thresholds: Partial<SuggestionThresholds> = {},
  records?: Promise<TurnRecords>,
): Promise<ApprovalSuggestions> {
  const history = await (records ?? readWindowRecords(context, window));
  const used: SuggestionThresholds = {
    minApprovals: Math.max(1, thresholds.minApprovals ?? defaultSuggestionThresholds.minApprovals),
    minPeople: Math.max(2, thresholds.minPeople ?? defaultSuggestionThresholds.minPeople),
  };
  return {
    since: window.since.toISOString(),
    until: window.until.toISOString(),
    turnsRead: history.turns.length,
    truncated: history.truncated,
    unansweredTurns: history.unansweredTurns,
    thresholds: used,
    suggestions: suggestApprovalRules({
      since: window.since,
      until: window.until,
      turns: history.turns,
      thresholds: used,
    }),
  };
}
