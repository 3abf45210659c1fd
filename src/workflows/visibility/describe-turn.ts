import type {
  AgentTurnResult,
  IgnoredToolApprovalDecision,
  PendingToolApproval,
  ToolApprovalAuditEntry,
} from '../../protocol';
import { argumentsInBrief, argumentsLine, cut } from '../../protocol/argument-summary';
import { toolOnPath } from '../../protocol/tool-on-path';

/** The value of the `TollgateApprovers` search attribute that stands for anyone. */
export const anyApprover = '*';

/** What a turn is busy with at the moment, apart from waiting for people. */
export type TurnActivityNow =
  | { type: 'model-step'; step: number }
  | { type: 'tools'; calls: Array<{ toolName: string; input: unknown }>; thenModelStep?: number }
  | { type: 'idle' };

/** A waiting approval with what the turn knows of who may decide it. */
export type WaitingApproval = PendingToolApproval & {
  /** False when the requester may not approve their own call. */
  selfApprovalAllowed?: boolean;
};

/** Everything the Temporal UI's "current details" of a turn are made of. */
export interface TurnPicture {
  /** `running` until the turn ends, then how it ended. */
  status: 'running' | AgentTurnResult['status'] | 'failed';
  doing: TurnActivityNow;
  pending: readonly WaitingApproval[];
  /** Tools whose output a client must submit. */
  awaitingOutput: readonly string[];
  decided: readonly ToolApprovalAuditEntry[];
  ignored: readonly IgnoredToolApprovalDecision[];
  /** Who started the turn. */
  requester?: string;
  /** Only signed decisions count (the gateway, the CLI through it); a bare signal or update is refused. */
  requireSigned: boolean;
  /** Model steps taken. */
  steps: number;
}

/** Approvals, decisions and ignored decisions listed in full; beyond these, a count. */
const maxListed = { pending: 10, decided: 10, ignored: 5 };

/**
 * Markdown for the Temporal UI's "current details" of a turn: what it does now; per waiting call the tool, its
 * arguments, who asked, who may decide, since and until when; how to decide in this configuration; decisions so far
 * and decisions it ignored, with why. Everything a model or a sender wrote is shown as code, never as markdown.
 */
export function describeTurn(picture: TurnPicture): string {
  const sections = [headline(picture)];
  if (picture.pending.length > 0 && picture.status === 'running') {
    sections.push(pendingSection(picture), decideHint(picture));
  } else if (picture.pending.length > 0) {
    const calls = picture.pending.map((approval) => code(toolOnPath(approval))).join(', ');
    sections.push(`Handed back to its caller undecided, to be asked again in its next turn: ${calls}.`);
  }
  if (picture.decided.length > 0) sections.push(decidedSection(picture));
  if (picture.ignored.length > 0) sections.push(ignoredSection(picture.ignored));
  return sections.join('\n\n');
}

/** The short line for what the turn does now, also the timeline's words: `model step 3`, `tool: bash ls`. */
export function describeActivity(doing: TurnActivityNow): string {
  if (doing.type === 'model-step') return `model step ${doing.step}`;
  if (doing.type === 'idle') return 'idle';
  const tools = doing.calls.map((call) => toolSummary(call.toolName, call.input)).join(', ');
  return doing.thenModelStep === undefined ? tools : `${tools}, then model step ${doing.thenModelStep}`;
}

/** `tool: bash ls`: one call, as the timeline names its activity. */
export function toolSummary(toolName: string, input: unknown): string {
  return `tool: ${callInBrief(toolName, input)}`;
}

/** `approval: writeFile notes.txt`: the wait for one decision, as the timeline names its timer. */
export function approvalSummary(toolName: string, input: unknown): string {
  return `approval: ${callInBrief(toolName, input)}`;
}

/** `reminder: bash ls`: the wait before reminding people of one approval. */
export function reminderSummary(approval: { toolName: string; input: unknown }): string {
  return `reminder: ${callInBrief(approval.toolName, approval.input)}`;
}

/** The timeline's name for the timer of an approval's expiry warning. */
export function expiryWarningSummary(approval: { toolName: string; input: unknown }): string {
  return `expiry warning: ${callInBrief(approval.toolName, approval.input)}`;
}

function callInBrief(toolName: string, input: unknown): string {
  const brief = argumentsInBrief(input);
  return cut(brief === '' ? toolName : `${toolName} ${brief}`, 80);
}

function headline(picture: TurnPicture): string {
  const by = picture.requester === undefined ? '' : ` Asked by ${code(picture.requester)}.`;
  if (picture.status !== 'running') {
    const steps = `${picture.steps} model ${picture.steps === 1 ? 'step' : 'steps'}`;
    return `**Finished:** ${picture.status} after ${steps}.${by}`;
  }
  const now: string[] = [];
  const { doing } = picture;
  if (doing.type === 'model-step') now.push(`model step ${doing.step}`);
  if (doing.type === 'tools') {
    const calls = doing.calls.map((call) => `${code(call.toolName)} ${code(argumentsInBrief(call.input))}`);
    const then = doing.thenModelStep === undefined ? '' : `, then model step ${doing.thenModelStep}`;
    now.push(`running ${calls.join(', ')}${then}`);
  }
  if (picture.pending.length > 0) {
    const tools = distinct(picture.pending.map((approval) => approval.toolName));
    const count = picture.pending.length === 1 ? '1 call' : `${picture.pending.length} calls`;
    now.push(`waiting for approval of ${count} (${tools.map(code).join(', ')})`);
  }
  if (picture.awaitingOutput.length > 0) {
    now.push(`waiting for a client's output of ${distinct(picture.awaitingOutput).map(code).join(', ')}`);
  }
  return `**Now:** ${now.length > 0 ? now.join('; ') : 'between steps'}.${by}`;
}

function pendingSection(picture: TurnPicture): string {
  const shown = picture.pending.slice(0, maxListed.pending).map((approval, index) => {
    const expiry =
      approval.expiresAt === undefined ? 'no expiry' : `until ${formatTime(approval.expiresAt)}, then denied`;
    const asked = picture.requester === undefined ? 'an unnamed caller' : code(picture.requester);
    const lines = [
      `- waiting since ${formatTime(approval.requestedAt)} · ${expiry}`,
      `- asked by ${asked} · may decide: ${deciders(approval, picture.requester)}`,
    ];
    if (approval.quorum !== undefined && approval.quorum > 1) {
      const votes = approval.votes ?? [];
      const who = votes.length > 0 ? ` (${votes.map((vote) => code(vote.approver)).join(', ')})` : '';
      lines.push(`- quorum: ${votes.length} of ${approval.quorum} approvals${who}`);
    }
    lines.push(`- approvalId ${code(approval.approvalId)}`);
    // A blank line before the list: some renderers (the Temporal UI's) read a list right after a line as text.
    return [
      `**${index + 1}. ${code(toolOnPath(approval))}** ${code(argumentsLine(approval.input))}`,
      '',
      ...lines,
    ].join('\n');
  });
  const more = picture.pending.length - shown.length;
  if (more > 0) shown.push(`… and ${more} more (query \`pendingToolApprovals\`).`);
  return [`### Waiting for approval (${picture.pending.length})`, ...shown].join('\n\n');
}

function deciders(approval: WaitingApproval, requester: string | undefined): string {
  const notRequester = approval.selfApprovalAllowed === false && requester !== undefined;
  if (approval.approvers === undefined) return notRequester ? `anyone but ${code(requester)}` : 'anyone';
  const names = approval.approvers.filter((name) => !(notRequester && name === requester));
  if (names.length === 0) return 'nobody (only the requester is named, and may not approve their own call)';
  return names.map(code).join(', ');
}

function decideHint(picture: TurnPicture): string {
  const cli = '`npx tollgate approve <approvalId>` (or `deny <approvalId> --reason "…"`)';
  const gateway = 'the approval gateway (`POST /v1/approvals/<approvalId>/decision`)';
  if (picture.requireSigned) {
    return (
      `**How to decide:** this worker counts signed decisions only: ${cli}, or ${gateway}. ` +
      'A `toolApprovalResponse` signal or `respondToToolApprovals` update sent from this page is refused.'
    );
  }
  return (
    `**How to decide:** ${cli}, ${gateway}, or from this page the \`toolApprovalResponse\` signal ` +
    '`{"approvalId": "<approvalId>", "approved": true, "approver": "<you>"}` or the `respondToToolApprovals` update.'
  );
}

function decidedSection(picture: TurnPicture): string {
  const title = picture.status === 'running' ? 'Decided so far' : 'Decisions';
  const shown = picture.decided.slice(-maxListed.decided).map((entry) => {
    const who = entry.approver === undefined ? '' : ` by ${code(entry.approver)}`;
    const why = entry.reason === undefined ? '' : ` — ${code(cut(entry.reason, 120))}`;
    // An approval with edited arguments: what the model asked for, and what ran instead, edited by whom.
    const edited =
      entry.editedInput === undefined
        ? ''
        : `; ran with ${code(argumentsInBrief(entry.editedInput))} as edited by ${code(entry.editedBy ?? entry.approver ?? 'an approver')}`;
    // A call a standing grant let through names the grant and who gave it: nobody was asked about this one.
    const how = entry.grant
      ? ` by standing grant ${code(entry.grant.grantId)} given by ${code(entry.grant.grantedBy)}`
      : `${who} via ${entry.via}`;
    return (
      `- ${code(entry.toolName)} ${code(argumentsInBrief(entry.input))}: **${entry.decision}**${how} ` +
      `at ${formatTime(entry.decidedAt)}${why}${edited}`
    );
  });
  const earlier = picture.decided.length - shown.length;
  if (earlier > 0) shown.unshift(`- … ${earlier} earlier (see the result's \`audit\`)`);
  return [`### ${title} (${picture.decided.length})`, '', ...shown].join('\n');
}

function ignoredSection(ignored: readonly IgnoredToolApprovalDecision[]): string {
  const shown = ignored
    .slice(-maxListed.ignored)
    .map((entry) => `- ${formatTime(entry.receivedAt)} · **${entry.cause}**: ${code(cut(entry.message, 200))}`);
  return [`### Ignored decisions (${ignored.length})`, '', ...shown].join('\n');
}

/** `2026-11-25 14:31:07 UTC` from an ISO 8601 time. */
export function formatTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/** Inline code a sender cannot break out of: no backticks, one line. */
function code(text: string): string {
  const line = cut(text, 200).replace(/`/g, 'ˋ');
  return line === '' ? '' : `\`${line}\``;
}

/** Everyone who may decide at least one of `pending`: named approvers, {@link anyApprover} where anyone may. */
export function eligibleApprovers(pending: readonly WaitingApproval[], requester: string | undefined): string[] {
  const names = pending.flatMap((approval) => {
    const notRequester = (name: string) => !(approval.selfApprovalAllowed === false && name === requester);
    return approval.approvers === undefined ? [anyApprover] : approval.approvers.filter(notRequester);
  });
  return distinct(names);
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}
