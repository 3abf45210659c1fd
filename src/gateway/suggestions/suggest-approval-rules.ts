import type { OperatorPolicy } from '../../policy/operator-policy';
import { isPathUnder, normalisePath, type ToolApprovalAuditEntry } from '../../protocol';
import { percentile } from '../stats/approval-stats';

/** How much history a suggestion needs. */
export interface SuggestionThresholds {
  /** Approvals (all of the calls that asked) a rule needs before it is suggested (default 5). */
  minApprovals: number;
  /** Distinct people among the approvers (default 2, never fewer: one person's habit is not a team's rule). */
  minPeople: number;
}

export const defaultSuggestionThresholds: SuggestionThresholds = { minApprovals: 5, minPeople: 2 };

/**
 * Which calls of a tool a rule covers, by one top-level argument: a path under a folder, a value from a list, or a
 * number at most so much. The shape of a standing grant's argument constraint, so that a suggestion's pattern is
 * the constraint of the grant it proposes.
 */
export type ArgumentPattern =
  | { type: 'path-under'; argument: string; folder: string }
  | { type: 'one-of'; argument: string; values: string[] }
  | { type: 'at-most'; argument: string; max: number };

/** What a suggestion is based on: every call it covers asked a person, and every one was approved. */
export interface SuggestionEvidence {
  /** Calls covered that asked a person in the window; all of them were approved. */
  approved: number;
  /** Who approved them (each voter of a quorum), most approvals first. */
  people: Array<{ approver: string; approvals: number }>;
  /** Median seconds from request to decision. */
  medianSecondsToDecide: number | null;
  /**
   * Seconds from request to decision, summed over the covered calls: how long runs waited for people, and an upper
   * bound of the approvers' time they took (what they spent reading is not recorded).
   */
  totalSecondsToDecide: number;
  /** When the first and the last covered call were decided (ISO 8601). */
  firstDecidedAt: string;
  lastDecidedAt: string;
  /** Calls of the tool outside the pattern that were denied or expired: why the rule is narrower than the tool. */
  notApprovedOutside: number;
}

/** How long a suggested grant holds unless the person creating it chooses otherwise. */
export const suggestedGrantDuration = '7d';

/**
 * The standing grant a person could create for a suggestion, as the body of `POST /v1/grants`: the tool, for
 * everyone, for {@link suggestedGrantDuration}, limited to the pattern. The person creating it may narrow the scope,
 * shorten the time or add a number of uses; the operator's caps apply.
 */
export interface SuggestedGrant {
  tools: [string];
  scope: { type: 'everyone' };
  for: string;
  /** The pattern, when the suggestion has one. */
  constraints?: [ArgumentPattern];
  /** Why, in words: the suggestion's sentence. */
  reason: string;
}

/** One proposed rule, with its evidence; nothing applies it by itself. */
export interface ApprovalRuleSuggestion {
  /** Stable for the same tool and pattern: `tool`, or `tool:argument:type`. */
  id: string;
  tool: string;
  /** Absent: every call of the tool. */
  pattern?: ArgumentPattern;
  /** One sentence a person reads. */
  summary: string;
  evidence: SuggestionEvidence;
  /** An operator-policy snippet that would stop these calls asking, where the policy file can say it. */
  policy?: OperatorPolicy;
  /** Why there is no policy snippet (or what the snippet assumes). */
  policyNote: string;
  grant: SuggestedGrant;
}

/** What suggestions are made from: the approval audits of the turns in a window. */
export interface SuggestionInput {
  since: Date;
  until: Date;
  turns: ReadonlyArray<{ audit: readonly ToolApprovalAuditEntry[] }>;
  thresholds?: Partial<SuggestionThresholds>;
}

/** A call that asked a person, as the suggestions count it. */
interface AskedCall {
  input: unknown;
  approved: boolean;
  people: string[];
  seconds: number | undefined;
  decidedAt: string;
}

// Decided by no person, or by nobody: they say nothing about what people approve.
// (`grant`, `plan`: a standing grant or an approved plan let the call through; strings, so that channels added later are named here too.)
const notByPeople = new Set<string>(['auto-approve', 'policy', 'superseded', 'grant', 'plan']);
const mostPatternsPerTool = 3;
const mostListValues = 10;
const longestListValue = 200;
// A server name as the worker allows it (no `_`), then `__`: the shape of an MCP tool's name.
const mcpToolNamePattern = /^([a-zA-Z0-9-]{1,32})__(.+)$/;

/**
 * Rules that would have saved asking in the window: a tool whose every call that asked a person was approved, at
 * least `minApprovals` times by at least `minPeople` people; or, where some calls of a tool were denied or expired,
 * an argument pattern (a path under a folder, a value from a list, a number at most X) whose every call was approved,
 * as often and by as many. Each comes with its evidence, the standing grant that would cover it and, where the
 * operator's policy file can express it, a policy snippet. Pure; the busiest first.
 *
 * @example
 * const [first] = suggestApprovalRules({ since, until, turns });
 * first.summary; // 'readLog: approved 12 of 12 times by 3 people (ana, bob, cy); median 8 s to decide.'
 */
export function suggestApprovalRules(input: SuggestionInput): ApprovalRuleSuggestion[] {
  const thresholds = {
    minApprovals: Math.max(1, input.thresholds?.minApprovals ?? defaultSuggestionThresholds.minApprovals),
    minPeople: Math.max(2, input.thresholds?.minPeople ?? defaultSuggestionThresholds.minPeople),
  };
  const byTool = askedCallsByTool(input);
  const suggestions: ApprovalRuleSuggestion[] = [];
  for (const [tool, calls] of byTool) {
    if (calls.every((call) => call.approved)) {
      if (qualifies(calls, thresholds)) suggestions.push(suggestion(tool, undefined, calls, 0));
      continue;
    }
    const patterns = findPatterns(calls, thresholds)
      .sort((first, second) => second.covered.length - first.covered.length)
      .slice(0, mostPatternsPerTool);
    for (const { pattern, covered } of patterns) {
      const outside = calls.filter((call) => !call.approved && !covered.includes(call)).length;
      suggestions.push(suggestion(tool, pattern, covered, outside));
    }
  }
  return suggestions.sort(
    (first, second) => second.evidence.approved - first.evidence.approved || first.id.localeCompare(second.id),
  );
}

function askedCallsByTool(input: SuggestionInput): Map<string, AskedCall[]> {
  const since = input.since.getTime();
  const until = input.until.getTime();
  const seen = new Set<string>();
  const byTool = new Map<string, AskedCall[]>();
  for (const turn of input.turns) {
    for (const entry of turn.audit) {
      if (entry.decision === 'awaiting-quorum' || notByPeople.has(entry.via) || seen.has(entry.approvalId)) continue;
      const decided = Date.parse(entry.decidedAt);
      if (!(decided >= since && decided <= until)) continue;
      seen.add(entry.approvalId);
      const approved = entry.decision === 'approved';
      const people =
        approved && entry.votes?.length
          ? entry.votes.map((vote) => vote.approver)
          : entry.approver !== undefined && entry.decision !== 'expired'
            ? [entry.approver]
            : [];
      const seconds = (decided - Date.parse(entry.requestedAt)) / 1000;
      const calls = byTool.get(entry.toolName) ?? [];
      calls.push({
        input: entry.input,
        approved,
        people,
        seconds: entry.decision === 'expired' || !Number.isFinite(seconds) ? undefined : Math.max(0, seconds),
        decidedAt: entry.decidedAt,
      });
      byTool.set(entry.toolName, calls);
    }
  }
  return byTool;
}

function qualifies(calls: readonly AskedCall[], thresholds: SuggestionThresholds): boolean {
  if (calls.length < thresholds.minApprovals || calls.some((call) => !call.approved)) return false;
  return new Set(calls.flatMap((call) => call.people)).size >= thresholds.minPeople;
}

/** Argument patterns every one of whose calls was approved, often enough and by enough people. */
function findPatterns(
  calls: readonly AskedCall[],
  thresholds: SuggestionThresholds,
): Array<{ pattern: ArgumentPattern; covered: AskedCall[] }> {
  const found: Array<{ pattern: ArgumentPattern; covered: AskedCall[] }> = [];
  const keys = new Set(calls.flatMap((call) => (isRecord(call.input) ? Object.keys(call.input) : [])));
  for (const argument of [...keys].sort()) {
    const valued = calls.flatMap((call) => {
      const value = isRecord(call.input) ? call.input[argument] : undefined;
      return value === undefined ? [] : [{ call, value }];
    });
    const check = (pattern: ArgumentPattern, matches: (value: unknown) => boolean) => {
      const covered = valued.filter(({ value }) => matches(value)).map(({ call }) => call);
      if (qualifies(covered, thresholds)) found.push({ pattern, covered });
    };
    if (valued.every(({ value }) => typeof value === 'string')) {
      const strings = valued as Array<{ call: AskedCall; value: string }>;
      if (strings.some(({ value }) => value.includes('/'))) {
        for (const folder of widestFolders(strings, thresholds)) {
          check({ type: 'path-under', argument, folder }, (value) => isPathUnder(value as string, folder));
        }
      } else {
        const refused = new Set(strings.filter(({ call }) => !call.approved).map(({ value }) => value));
        const values = [...new Set(strings.map(({ value }) => value))].filter((value) => !refused.has(value)).sort();
        if (
          values.length >= 1 &&
          values.length <= mostListValues &&
          values.every((value) => value.length <= longestListValue)
        )
          check({ type: 'one-of', argument, values }, (value) => values.includes(value as string));
      }
    } else if (valued.every(({ value }) => typeof value === 'number' && Number.isFinite(value))) {
      const numbers = valued as Array<{ call: AskedCall; value: number }>;
      const lowestRefused = Math.min(...numbers.filter(({ call }) => !call.approved).map(({ value }) => value));
      const below = numbers.filter(({ value }) => value < lowestRefused).map(({ value }) => value);
      if (below.length > 0) {
        const max = Math.max(...below);
        check({ type: 'at-most', argument, max }, (value) => (value as number) <= max);
      }
    }
  }
  return found;
}

/**
 * The folders (`docs`, `src/api`) under which every call was approved, widest first: a folder is left out when a
 * folder above it qualifies already.
 */
function widestFolders(
  values: ReadonlyArray<{ call: AskedCall; value: string }>,
  thresholds: SuggestionThresholds,
): string[] {
  const candidates = new Set<string>();
  for (const { call, value } of values) {
    const path = call.approved ? normalisePath(value) : undefined;
    if (!path) continue;
    const segments = path.split('/');
    // Every folder above the path; the root covers everything, which is the tool's own rule, not a pattern.
    for (let length = 1; length < segments.length; length += 1) candidates.add(segments.slice(0, length).join('/'));
  }
  const good = [...candidates].filter((folder) => {
    const covered = values.filter(({ value }) => isPathUnder(value, folder)).map(({ call }) => call);
    return qualifies(covered, thresholds);
  });
  return good.filter((folder) => !good.some((other) => other !== folder && isPathUnder(folder, other))).sort();
}

function suggestion(
  tool: string,
  pattern: ArgumentPattern | undefined,
  covered: readonly AskedCall[],
  notApprovedOutside: number,
): ApprovalRuleSuggestion {
  const approvals = new Map<string, number>();
  for (const person of covered.flatMap((call) => call.people)) approvals.set(person, (approvals.get(person) ?? 0) + 1);
  const people = [...approvals.entries()]
    .map(([approver, count]) => ({ approver, approvals: count }))
    .sort((first, second) => second.approvals - first.approvals || first.approver.localeCompare(second.approver));
  const seconds = covered.flatMap((call) => (call.seconds === undefined ? [] : [call.seconds]));
  const median = percentile(seconds, 50);
  const decided = covered.map((call) => call.decidedAt).sort();
  const evidence: SuggestionEvidence = {
    approved: covered.length,
    people,
    medianSecondsToDecide: median === undefined ? null : Math.round(median * 10) / 10,
    totalSecondsToDecide: Math.round(seconds.reduce((sum, value) => sum + value, 0) * 10) / 10,
    firstDecidedAt: decided[0] ?? '',
    lastDecidedAt: decided.at(-1) ?? '',
    notApprovedOutside,
  };
  const names = people.map((person) => person.approver);
  const shownNames = names.length > 4 ? `${names.slice(0, 4).join(', ')}, …` : names.join(', ');
  const summary =
    `${tool}${pattern ? ` ${describePattern(pattern)}` : ''}: approved ${covered.length} of ${covered.length} times ` +
    `by ${names.length} people (${shownNames})` +
    (evidence.medianSecondsToDecide === null
      ? ''
      : `; median ${formatSeconds(evidence.medianSecondsToDecide)} to decide`) +
    (notApprovedOutside > 0
      ? `. Calls outside it were denied or expired ${notApprovedOutside} ${notApprovedOutside === 1 ? 'time' : 'times'}.`
      : '.');
  const mcp = mcpToolNamePattern.exec(tool);
  const policyPart =
    pattern === undefined && mcp
      ? {
          policy: { mcpServers: { [mcp[1]!]: { tools: { [mcp[2]!]: { needsApproval: false } } } } },
          policyNote: `If ${tool} is the tool "${mcp[2]}" of the MCP server "${mcp[1]}" (use the server's own name for it where it has characters other than letters, digits, "_" and "-").`,
        }
      : {
          policyNote:
            pattern === undefined
              ? `The policy file can make a tool ask, not stop a tool that is not an MCP server's from asking (its definition decides): create the grant, or set needsApproval: false where ${tool} is defined.`
              : 'The policy file holds no rules on arguments: create the grant.',
        };
  return {
    id: pattern ? `${tool}:${pattern.argument}:${pattern.type}` : tool,
    tool,
    ...(pattern && { pattern }),
    summary,
    evidence,
    ...policyPart,
    grant: {
      tools: [tool],
      scope: { type: 'everyone' },
      for: suggestedGrantDuration,
      ...(pattern && { constraints: [pattern] as [ArgumentPattern] }),
      reason: `Suggested from the audit: ${summary}`.slice(0, 2000),
    },
  };
}

/** The pattern in words: `with path under docs/`, `with command one of "ls", "pwd"`, `with count at most 10`. */
export function describePattern(pattern: ArgumentPattern): string {
  switch (pattern.type) {
    case 'path-under':
      return `with ${pattern.argument} under ${pattern.folder}/`;
    case 'one-of':
      return `with ${pattern.argument} ${pattern.values.length === 1 ? '' : 'one of '}${pattern.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'at-most':
      return `with ${pattern.argument} at most ${pattern.max}`;
  }
}

function formatSeconds(seconds: number): string {
  if (seconds < 1) return 'under a second';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
