import { durationToMilliseconds, type ToolApprovalAuditEntry } from '../protocol';
import { mcpToolName } from '../tools/mcp/mcp-tool-name';
import type { McpServerRules, McpToolRules, OperatorPolicy } from './operator-policy';
import { resolveApprovalRules, type ResolvedApprovalRules } from './resolve-approval-rules';

/** One turn's records as a replay reads them (what `readTurnRecords` of `src/client` returns). */
export interface ReplayTurn {
  workflowId: string;
  /** Who started the turn; the self-approval rule needs it. */
  requester?: string;
  /** The turn's approval audit: tool, arguments, decision, approver, times. */
  audit: readonly ToolApprovalAuditEntry[];
  /** Every tool call in the turn's messages; absent when they were not read. */
  calls?: ReadonlyArray<{ toolCallId: string; toolName: string }>;
}

/** What a replay is made from. */
export interface PolicyReplayInput {
  candidate: OperatorPolicy;
  since: Date;
  until: Date;
  turns: readonly ReplayTurn[];
  /** More turns were in the window than were read. */
  truncated: boolean;
  /** Turns whose records could not be read. */
  unansweredTurns: number;
}

/** A recorded call whose outcome the candidate would change. */
export interface ReplayedCall {
  workflowId: string;
  approvalId: string;
  toolName: string;
  input: unknown;
  decision: 'approved' | 'denied' | 'expired' | 'superseded';
  approver?: string;
  reason?: string;
  decidedAt: string;
  /** What the candidate would have done, in a sentence. */
  because: string;
}

/** What a candidate operator policy would have changed in a window, and what the records cannot tell. */
export interface PolicyReplay {
  since: string;
  until: string;
  turnsRead: number;
  truncated: boolean;
  unansweredTurns: number;
  /** Approvals in the window (decided by anyone or anything). */
  approvalsRead: number;
  /** Calls a person denied that the candidate would run without asking. Any of these fails `policy check`. */
  wouldRunDenied: ReplayedCall[];
  /** Calls nobody decided (expired, superseded) that the candidate would run without asking. */
  wouldRunUndecided: ReplayedCall[];
  /** Calls people approved that the candidate would run without asking. */
  approvalsSaved: {
    count: number;
    /** Request-to-decision seconds summed: how long those runs waited for people. */
    totalSecondsToDecide: number;
    byTool: Array<{ tool: string; approved: number; people: string[] }>;
  };
  /** Tools the candidate still asks about whose every call that asked a person was approved. */
  alwaysApprovedStillAsked: Array<{ tool: string; approved: number; people: string[] }>;
  /** Calls made without asking that the candidate would ask about, per tool. */
  newlyAsked: Array<{ tool: string; calls: number }>;
  /** Decisions the candidate's rules on who decides, how many and how soon would not have taken as they were. */
  decidedOtherwise: ReplayedCall[];
  /** Turns that ran with autoApprove, which the candidate does not allow. */
  autonomousTurnsRefused: string[];
  /** What the records do not hold, and so was not replayed. */
  unknown: string[];
}

// The rule settings a replay compares with the records, and the policy's top-level keys it reads; any other setting
// is named as not replayed (a setting added to the policy format later too).
const replayedRuleKeys = new Set([
  'approvers',
  'editors',
  'allowSelfApproval',
  'quorum',
  'approvalTimeout',
  'needsApproval',
  'idempotent',
  'tools',
]);
const replayedPolicyKeys = new Set(['defaults', 'tools', 'mcpServers', 'allowAutoApprove', 'decisions']);
// A server name as the worker allows it (no `_`), then `__`: the shape of an MCP tool's name.
const mcpToolNamePattern = /^([a-zA-Z0-9-]{1,32})__(.+)$/;

/**
 * Replays `candidate` over the approvals recorded in a window: which calls it would run without asking (and whether a
 * person had denied them), which it would ask that ran without asking, which decisions its approvers, self-approval,
 * quorum, editors and timeouts would not have taken, and what the records cannot say. Whether a call asks is the
 * candidate's where it says so (`tools.<name>.needsApproval`, an MCP server's or tool's `needsApproval`); elsewhere a
 * tool's own definition decides, which the records do not hold, so the call is taken as it happened. Pure.
 *
 * @example
 * const replay = replayPolicy({ candidate, since, until, turns, truncated: false, unansweredTurns: 0 });
 * if (replay.wouldRunDenied.length > 0) process.exitCode = 1;
 */
export function replayPolicy(input: PolicyReplayInput): PolicyReplay {
  const { candidate } = input;
  const since = input.since.getTime();
  const until = input.until.getTime();
  const replay: PolicyReplay = {
    since: input.since.toISOString(),
    until: input.until.toISOString(),
    turnsRead: input.turns.length,
    truncated: input.truncated,
    unansweredTurns: input.unansweredTurns,
    approvalsRead: 0,
    wouldRunDenied: [],
    wouldRunUndecided: [],
    approvalsSaved: { count: 0, totalSecondsToDecide: 0, byTool: [] },
    alwaysApprovedStillAsked: [],
    newlyAsked: [],
    decidedOtherwise: [],
    autonomousTurnsRefused: [],
    unknown: [],
  };
  const saved = new Map<string, { approved: number; people: Set<string> }>();
  const stillAsked = new Map<string, { asked: number; approved: number; people: Set<string> }>();
  const newlyAsked = new Map<string, number>();
  const seen = new Set<string>();
  let byCode = 0;
  let byGrant = 0;
  let waitsLonger = 0;
  let requesterMissing = 0;
  let callsMissing = 0;

  for (const turn of input.turns) {
    const asked = new Set(turn.audit.map((entry) => entry.toolCallId));
    for (const entry of turn.audit) {
      if (entry.decision === 'awaiting-quorum' || seen.has(entry.approvalId)) continue;
      const decided = Date.parse(entry.decidedAt);
      if (!(decided >= since && decided <= until)) continue;
      seen.add(entry.approvalId);
      replay.approvalsRead += 1;
      if (entry.via === 'auto-approve') {
        if (candidate.allowAutoApprove !== true && !replay.autonomousTurnsRefused.includes(turn.workflowId))
          replay.autonomousTurnsRefused.push(turn.workflowId);
        continue;
      }
      if (entry.via === 'policy') {
        byCode += 1;
        continue;
      }
      // A standing grant or an approved plan let it through: people's decisions, not the policy file's, so it stays as
      // it was — unless the candidate forbids grants of the tool (a plan is a grant for its calls), when it would have
      // asked.
      if (entry.via === 'grant' || entry.via === 'plan') {
        if (grantsForbidden(candidate, entry.toolName))
          newlyAsked.set(entry.toolName, (newlyAsked.get(entry.toolName) ?? 0) + 1);
        else byGrant += 1;
        continue;
      }
      const decision = entry.via === 'superseded' ? 'superseded' : entry.decision;
      const byPerson = decision === 'approved' || decision === 'denied';
      const asking = askingOf(candidate, entry.toolName);
      const call = (because: string): ReplayedCall => ({
        workflowId: turn.workflowId,
        approvalId: entry.approvalId,
        toolName: entry.toolName,
        input: entry.input,
        decision,
        ...(entry.approver !== undefined && { approver: entry.approver }),
        ...(entry.reason !== undefined && { reason: entry.reason }),
        decidedAt: entry.decidedAt,
        because,
      });
      if (asking?.asks === false) {
        if (decision === 'denied') replay.wouldRunDenied.push(call(`${asking.because} runs it without asking`));
        else if (decision === 'approved') {
          const tool = saved.get(entry.toolName) ?? { approved: 0, people: new Set<string>() };
          tool.approved += 1;
          for (const person of votersOf(entry)) tool.people.add(person);
          saved.set(entry.toolName, tool);
          replay.approvalsSaved.count += 1;
          replay.approvalsSaved.totalSecondsToDecide += secondsToDecide(entry);
        } else replay.wouldRunUndecided.push(call(`${asking.because} runs it without asking; nobody decided it`));
        continue;
      }
      // Still asked: as it happened, or because the candidate says so.
      const tool = stillAsked.get(entry.toolName) ?? { asked: 0, approved: 0, people: new Set<string>() };
      if (decision !== 'superseded') tool.asked += 1;
      if (decision === 'approved') {
        tool.approved += 1;
        for (const person of votersOf(entry)) tool.people.add(person);
      }
      stillAsked.set(entry.toolName, tool);
      const rules = rulesOf(candidate, entry.toolName, turn.requester);
      if (byPerson) {
        const changes = decidedOtherwise(entry, rules, turn.requester);
        if (changes.length > 0) replay.decidedOtherwise.push(call(changes.join(' ')));
        if (rules.rights?.allowSelfApproval === false && turn.requester === undefined) requesterMissing += 1;
      } else if (decision === 'expired') {
        const waited = Date.parse(entry.decidedAt) - Date.parse(entry.requestedAt);
        if (rules.timeoutMs === undefined || rules.timeoutMs > waited) waitsLonger += 1;
      }
    }
    if (!turn.calls) {
      callsMissing += 1;
      continue;
    }
    for (const made of turn.calls) {
      if (asked.has(made.toolCallId) || askingOf(candidate, made.toolName)?.asks !== true) continue;
      newlyAsked.set(made.toolName, (newlyAsked.get(made.toolName) ?? 0) + 1);
    }
  }

  replay.approvalsSaved.totalSecondsToDecide = Math.round(replay.approvalsSaved.totalSecondsToDecide * 10) / 10;
  replay.approvalsSaved.byTool = [...saved.entries()]
    .map(([tool, { approved, people }]) => ({ tool, approved, people: [...people].sort() }))
    .sort((first, second) => second.approved - first.approved || first.tool.localeCompare(second.tool));
  replay.alwaysApprovedStillAsked = [...stillAsked.entries()]
    .filter(([, tool]) => tool.approved > 0 && tool.approved === tool.asked)
    .map(([tool, { approved, people }]) => ({ tool, approved, people: [...people].sort() }))
    .sort((first, second) => second.approved - first.approved || first.tool.localeCompare(second.tool));
  replay.newlyAsked = [...newlyAsked.entries()]
    .map(([tool, calls]) => ({ tool, calls }))
    .sort((first, second) => second.calls - first.calls || first.tool.localeCompare(second.tool));
  replay.unknown = unknowns(input, { byCode, byGrant, waitsLonger, requesterMissing, callsMissing });
  return replay;
}

/** Whether the candidate says a tool asks, and where; undefined when it leaves that to the tool's definition. */
export function askingOf(candidate: OperatorPolicy, toolName: string): { asks: boolean; because: string } | undefined {
  // The worker's order: the policy's `tools` rule makes a call ask whatever else says.
  if (candidate.tools?.[toolName]?.needsApproval === true)
    return { asks: true, because: `tools.${toolName}.needsApproval` };
  const mcp = mcpRulesOf(candidate, toolName);
  if (!mcp) return undefined;
  if (mcp.tool?.needsApproval !== undefined)
    return { asks: mcp.tool.needsApproval, because: `mcpServers.${mcp.serverName}.tools.${mcp.toolKey}.needsApproval` };
  if (mcp.server.needsApproval !== undefined)
    return { asks: mcp.server.needsApproval, because: `mcpServers.${mcp.serverName}.needsApproval` };
  return undefined;
}

/** The candidate's rules for an MCP tool's name (`server__tool`), when it has rules for that server. */
function mcpRulesOf(
  candidate: OperatorPolicy,
  toolName: string,
): { serverName: string; server: McpServerRules; toolKey?: string; tool?: McpToolRules } | undefined {
  const serverName = mcpToolNamePattern.exec(toolName)?.[1];
  const server = serverName === undefined ? undefined : candidate.mcpServers?.[serverName];
  if (serverName === undefined || !server) return undefined;
  // The policy names a server's tool by the server's own name; the model's name may have been made safe from it.
  const toolKey = Object.keys(server.tools ?? {}).find((key) => mcpToolName(serverName, key) === toolName);
  const tool = toolKey === undefined ? undefined : server.tools?.[toolKey];
  return { serverName, server, ...(toolKey !== undefined && tool && { toolKey, tool }) };
}

/** The candidate's rules for a call, as the worker resolves them (an MCP tool's operator rules as the tool's own). */
function rulesOf(candidate: OperatorPolicy, toolName: string, requester: string | undefined): ResolvedApprovalRules {
  const mcp = mcpRulesOf(candidate, toolName);
  const layered = mcp ? { ...mcp.server, ...mcp.tool } : undefined;
  const toolRules = layered && {
    ...(layered.approvers && { approvers: layered.approvers }),
    ...(layered.editors && { editors: layered.editors }),
    ...(layered.allowSelfApproval !== undefined && { allowSelfApproval: layered.allowSelfApproval }),
    ...(layered.quorum !== undefined && { quorum: layered.quorum }),
    ...(layered.approvalTimeout !== undefined && {
      approvalTimeoutMs: durationToMilliseconds(layered.approvalTimeout),
    }),
  };
  return resolveApprovalRules({
    policy: candidate,
    toolName,
    ...(toolRules && { toolRules }),
    ...(requester !== undefined && { requester }),
  });
}

/** Sentences for what the candidate's rules would have done differently with a person's decision. */
function decidedOtherwise(
  entry: ToolApprovalAuditEntry,
  rules: ResolvedApprovalRules,
  requester: string | undefined,
): string[] {
  const changes: string[] = [];
  const rights = rules.rights;
  const voters = votersOf(entry);
  const approvers = rights?.approvers;
  const outsiders = approvers ? voters.filter((person) => !approvers.includes(person)) : [];
  if (outsiders.length > 0)
    changes.push(
      `${outsiders.join(', ')} ${outsiders.length === 1 ? 'is' : 'are'} not among its approvers (${approvers!.join(', ')}): it would have waited for one of them.`,
    );
  if (rights && !rights.allowSelfApproval && requester !== undefined && voters.includes(requester))
    changes.push(`${requester} decided their own request, which it does not allow.`);
  const quorum = rights?.quorum ?? 1;
  if (entry.decision === 'approved' && new Set(voters).size < quorum)
    changes.push(`It needs ${quorum} approvers; ${new Set(voters).size} approved: it would have waited for more.`);
  if (entry.editedBy !== undefined && !(rights?.editors ?? []).includes(entry.editedBy))
    changes.push(`${entry.editedBy} changed the arguments; it lets ${rights?.editors?.join(', ') || 'nobody'} edit.`);
  const waited = Date.parse(entry.decidedAt) - Date.parse(entry.requestedAt);
  if (rules.timeoutMs !== undefined && waited > rules.timeoutMs)
    changes.push(
      `Decided after ${formatDuration(waited)}; its approvalTimeout (${formatDuration(rules.timeoutMs)}) would have expired it first.`,
    );
  return changes;
}

function unknowns(
  input: PolicyReplayInput,
  counts: { byCode: number; byGrant: number; waitsLonger: number; requesterMissing: number; callsMissing: number },
): string[] {
  const { candidate } = input;
  const lines: string[] = [];
  if (input.truncated)
    lines.push(`Only the newest ${input.turns.length} turns of the window were read; older ones were not replayed.`);
  if (input.unansweredTurns > 0)
    lines.push(`${input.unansweredTurns} turns did not answer in time; their calls were not replayed.`);
  if (counts.byCode > 0)
    lines.push(
      `${counts.byCode} calls were decided by the worker's onToolApproval: code the records do not hold, not replayed.`,
    );
  if (counts.byGrant > 0)
    lines.push(
      `${counts.byGrant} calls ran under standing grants; grants are people's decisions, not the policy file's, and are taken as they were.`,
    );
  if (counts.waitsLonger > 0)
    lines.push(
      `${counts.waitsLonger} calls expired; the candidate would wait longer for them, and whether someone would then have decided is not recorded.`,
    );
  if (counts.requesterMissing > 0)
    lines.push(
      `${counts.requesterMissing} decisions are in turns that name no requester: whether they were self-approvals is not known.`,
    );
  if (counts.callsMissing > 0)
    lines.push(
      `The calls made without asking in ${counts.callsMissing} turns were not read: calls the candidate would newly ask about may be missing.`,
    );
  const rulesUsed = Object.keys(candidate.tools ?? {}).length > 0 || candidate.defaults || candidate.mcpServers;
  if (rulesUsed)
    lines.push(
      "Rules set in a tool's own definition and a turn's own (stricter) rules are not in the records: who may decide is checked against the candidate's rules alone.",
    );
  const rules = [
    candidate.defaults,
    ...Object.values(candidate.tools ?? {}),
    ...Object.values(candidate.mcpServers ?? {}).flatMap((server) => [server, ...Object.values(server.tools ?? {})]),
  ].filter((rule) => rule !== undefined);
  const notReplayed = [...new Set(rules.flatMap((rule) => Object.keys(rule)))]
    .filter((key) => !replayedRuleKeys.has(key))
    .sort();
  if (notReplayed.length > 0)
    lines.push(
      `Not replayed: ${notReplayed.join(', ')} (they change who is told, what expiry does or what may be granted, not what the records show ran).`,
    );
  const otherKeys = Object.keys(candidate).filter((key) => !replayedPolicyKeys.has(key));
  if (otherKeys.length > 0) lines.push(`Not replayed: ${otherKeys.sort().join(', ')}.`);
  if (candidate.decisions)
    lines.push('Not replayed: decisions (signatures are checked when a decision arrives; the records keep no keys).');
  return lines;
}

/**
 * Whether the candidate forbids standing grants of a tool (`grants: false` in its rules for the tool, or in the
 * defaults). Read loosely: the setting belongs to the standing grants' part of the policy format.
 */
function grantsForbidden(candidate: OperatorPolicy, toolName: string): boolean {
  const setting = (rules: object | undefined) => (rules as { grants?: unknown } | undefined)?.grants;
  const forTool = setting(candidate.tools?.[toolName]);
  return (forTool ?? setting(candidate.defaults)) === false;
}

/** The people whose approval made the decision: each voter of a quorum, else its one approver. */
function votersOf(entry: ToolApprovalAuditEntry): string[] {
  if (entry.decision === 'approved' && entry.votes?.length) return entry.votes.map((vote) => vote.approver);
  return entry.approver !== undefined ? [entry.approver] : [];
}

function secondsToDecide(entry: ToolApprovalAuditEntry): number {
  const seconds = (Date.parse(entry.decidedAt) - Date.parse(entry.requestedAt)) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, seconds) : 0;
}

function formatDuration(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 360) / 10} h`;
  return `${Math.round(seconds / 8640) / 10} d`;
}
