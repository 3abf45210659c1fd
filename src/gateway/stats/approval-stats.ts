import type { PendingToolApproval, ToolApprovalAuditEntry } from '../../protocol';
import type { DecisionAttempt } from '../decisions/decision-audit';

/** Seconds from request to decision, at the 50th and 95th percentile; null without any decision by a person. */
export interface TimeToDecision {
  p50: number | null;
  p95: number | null;
}

/** How one tool's approvals went in the window. */
export interface ToolApprovalStats {
  tool: string;
  /** Approvals asked of people: closed in the window, or still open. */
  count: number;
  approved: number;
  denied: number;
  expired: number;
  /** Denied because a newer message replaced the turn: nobody decided. */
  superseded: number;
  /** Still waiting. */
  pending: number;
  /** Over approvals a person approved or denied. */
  timeToDecisionSeconds: TimeToDecision;
}

/** How one approver decided in the window. */
export interface ApproverStats {
  approver: string;
  /** Decisions that counted (a quorum's votes each count for their approver). */
  count: number;
  approved: number;
  denied: number;
  /** Attempts the gateway refused (not allowed, conflicting, too late, …); they changed nothing. */
  refused: number;
  timeToDecisionSeconds: TimeToDecision;
}

/** What `GET /v1/approvals/stats` answers. */
export interface ApprovalStats {
  /** Start of the window (ISO 8601). */
  since: string;
  /** When the numbers were made (ISO 8601). */
  until: string;
  /** Turns whose approvals were read. */
  turnsRead: number;
  /** True when more turns were in the window than one answer reads: the numbers cover the newest `turnsRead`. */
  truncated: boolean;
  /** Turns that did not answer in time (a turn no worker serves); their approvals are missing. */
  unansweredTurns: number;
  tools: ToolApprovalStats[];
  approvers: ApproverStats[];
  /** Refused attempts in the gateway's audit, by the refusal's code. */
  refused: { total: number; byCode: Record<string, number> };
}

/** One turn's approvals as read from Temporal: its audit, and what still waits. */
export interface TurnApprovalRecord {
  audit: readonly ToolApprovalAuditEntry[];
  pending: readonly PendingToolApproval[];
}

/** What the numbers are made from. */
export interface ApprovalStatsInput {
  since: Date;
  until: Date;
  turns: readonly TurnApprovalRecord[];
  /** The gateway's audit of decision attempts (any window: those before `since` are left out). */
  attempts: readonly DecisionAttempt[];
  truncated: boolean;
  unansweredTurns: number;
}

// Decided by no person: they are not approvals anybody was asked for.
// (`grant`, `plan`: a standing grant or an approved plan let the call through; strings, so that channels added later are named here too.)
const unasked = new Set<string>(['auto-approve', 'policy', 'grant', 'plan']);

/**
 * Counts, per tool and per approver, how approvals went between `since` and `until`: an approval counts once it
 * is closed in the window (approved, denied, expired, superseded) or while it still waits. Time to decision is
 * over decisions people made; expiry and supersession are not decisions. Pure: the route reads, this counts.
 *
 * @example
 * const stats = aggregateApprovalStats({ since, until, turns, attempts, truncated: false, unansweredTurns: 0 });
 * stats.tools[0]; // { tool: 'deploy', count: 3, approved: 1, denied: 1, expired: 1, …, timeToDecisionSeconds: { p50: 4, p95: 9 } }
 */
export function aggregateApprovalStats(input: ApprovalStatsInput): ApprovalStats {
  const since = input.since.getTime();
  const until = input.until.getTime();
  const inWindow = (iso: string) => {
    const time = Date.parse(iso);
    return time >= since && time <= until;
  };
  const tools = new Map<string, ToolApprovalStats & { times: number[] }>();
  const approvers = new Map<string, ApproverStats & { times: number[] }>();
  const toolOf = (tool: string) => {
    let entry = tools.get(tool);
    if (!entry) {
      entry = { ...emptyTool(tool), times: [] };
      tools.set(tool, entry);
    }
    return entry;
  };
  const approverOf = (approver: string) => {
    let entry = approvers.get(approver);
    if (!entry) {
      entry = { ...emptyApprover(approver), times: [] };
      approvers.set(approver, entry);
    }
    return entry;
  };

  const seen = new Set<string>();
  for (const turn of input.turns) {
    for (const entry of turn.audit) {
      if (entry.decision === 'awaiting-quorum' || unasked.has(entry.via) || seen.has(entry.approvalId)) continue;
      if (!inWindow(entry.decidedAt)) continue;
      seen.add(entry.approvalId);
      const tool = toolOf(entry.toolName);
      tool.count += 1;
      if (entry.via === 'superseded') {
        tool.superseded += 1;
        continue;
      }
      if (entry.decision === 'expired') {
        tool.expired += 1;
        continue;
      }
      tool[entry.decision] += 1;
      const seconds = secondsBetween(entry.requestedAt, entry.decidedAt);
      if (seconds !== undefined) tool.times.push(seconds);
      // A quorum's approval is each voter's; anything else is its one approver's.
      const votes =
        entry.decision === 'approved' && entry.votes?.length
          ? entry.votes
          : entry.approver !== undefined
            ? [{ approver: entry.approver, decidedAt: entry.decidedAt }]
            : [];
      for (const vote of votes) {
        const approver = approverOf(vote.approver);
        approver.count += 1;
        approver[entry.decision] += 1;
        const voteSeconds = secondsBetween(entry.requestedAt, vote.decidedAt);
        if (voteSeconds !== undefined) approver.times.push(voteSeconds);
      }
    }
    for (const pending of turn.pending) {
      if (seen.has(pending.approvalId)) continue;
      seen.add(pending.approvalId);
      const tool = toolOf(pending.toolName);
      tool.count += 1;
      tool.pending += 1;
    }
  }

  const byCode: Record<string, number> = {};
  let refusedTotal = 0;
  for (const attempt of input.attempts) {
    if (attempt.outcome !== 'refused' || !inWindow(attempt.at)) continue;
    // A coalesced line stands for `count` refusals alike (a flood, docs/trust-model.md).
    const refusals = attempt.coalesced?.count ?? 1;
    refusedTotal += refusals;
    const code = attempt.refusal?.code ?? 'unknown';
    byCode[code] = (byCode[code] ?? 0) + refusals;
    approverOf(attempt.approver).refused += refusals;
  }

  return {
    since: input.since.toISOString(),
    until: input.until.toISOString(),
    turnsRead: input.turns.length,
    truncated: input.truncated,
    unansweredTurns: input.unansweredTurns,
    tools: [...tools.values()]
      .map(({ times, ...tool }) => ({ ...tool, timeToDecisionSeconds: percentiles(times) }))
      .sort((first, second) => second.count - first.count || first.tool.localeCompare(second.tool)),
    approvers: [...approvers.values()]
      .map(({ times, ...approver }) => ({ ...approver, timeToDecisionSeconds: percentiles(times) }))
      .sort((first, second) => second.count - first.count || first.approver.localeCompare(second.approver)),
    refused: { total: refusedTotal, byCode },
  };
}

/**
 * The nearest-rank percentile `rank` (0–100) of `values`: the smallest value at least `rank`% of them are at or
 * below. Undefined for no values.
 *
 * @example
 * percentile([1, 2, 3, 4], 50); // 2
 */
export function percentile(values: readonly number[], rank: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((first, second) => first - second);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((rank / 100) * sorted.length) - 1));
  return sorted[index];
}

function percentiles(values: readonly number[]): TimeToDecision {
  return { p50: roundOrNull(percentile(values, 50)), p95: roundOrNull(percentile(values, 95)) };
}

// Tenths of a second: enough for people's decisions, and stable in an answer.
function roundOrNull(value: number | undefined): number | null {
  return value === undefined ? null : Math.round(value * 10) / 10;
}

function secondsBetween(from: string, to: string): number | undefined {
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, seconds) : undefined;
}

function emptyTool(tool: string): ToolApprovalStats {
  const none = { p50: null, p95: null };
  return {
    tool,
    count: 0,
    approved: 0,
    denied: 0,
    expired: 0,
    superseded: 0,
    pending: 0,
    timeToDecisionSeconds: none,
  };
}

function emptyApprover(approver: string): ApproverStats {
  return { approver, count: 0, approved: 0, denied: 0, refused: 0, timeToDecisionSeconds: { p50: null, p95: null } };
}
