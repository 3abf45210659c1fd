import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { TollgateClient } from '../client';
import { readTurnRecords } from '../client/read-turn-records';
import { operatorPolicySchema, type OperatorPolicy } from '../policy/operator-policy';
import { replayPolicy, type PolicyReplay, type ReplayedCall } from '../policy/replay-policy';
import { durationToMilliseconds } from '../protocol';
import { argumentsLine } from '../protocol/argument-summary';
import { clip } from './format-turn';

/** Turns `policy check` reads when `--max-turns` is not given, and the most it reads. */
export const defaultReplayTurnLimit = 2_000;
export const maximumReplayTurnLimit = 100_000;

/** A candidate policy file that cannot be used: it does not parse or is not a policy. Exit status 2. */
export class CandidatePolicyError extends Error {
  override readonly name = 'CandidatePolicyError';
}

/**
 * The candidate operator policy in `file` (the `TOLLGATE_POLICY_FILE` format), checked as the worker checks it.
 *
 * @example
 * const candidate = readCandidatePolicy('candidate.json');
 */
export function readCandidatePolicy(file: string, read = (path: string) => readFileSync(path, 'utf8')): OperatorPolicy {
  let raw: unknown;
  try {
    raw = JSON.parse(read(file));
  } catch (error) {
    throw new CandidatePolicyError(`"${file}" could not be read as JSON: ${(error as Error).message}`);
  }
  const parsed = operatorPolicySchema.safeParse(raw);
  if (!parsed.success)
    throw new CandidatePolicyError(`"${file}" is not a valid policy:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The start of the window `--since` names: a duration back from `now` (`30d`, `12h`) or an ISO 8601 time. */
export function replayWindowStart(since: string, now: Date): Date {
  if (/^\d+(\.\d+)?\s*(ms|s|m|h|d)$/.test(since)) return new Date(now.getTime() - durationToMilliseconds(since));
  const start = new Date(since);
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(start.getTime()))
    throw new CandidatePolicyError(`--since takes a duration such as 30d or 12h, or an ISO 8601 time; got "${since}".`);
  if (start.getTime() > now.getTime()) throw new CandidatePolicyError('--since must be in the past.');
  return start;
}

/**
 * `tollgate policy check <candidate.json> --since 30d`: replays the candidate over the calls the turns of the window
 * recorded (read from Temporal: the turns' audits hold tool, arguments, decision and approver; their messages the calls
 * that did not ask) and prints what would change. Resolves to the exit status: 1 when the candidate would have run a
 * call a person denied, else 0.
 */
export async function policyCheckCommand(
  tollgate: TollgateClient,
  options: { candidate: OperatorPolicy; file: string; since: Date; maxTurns: number; json?: boolean },
): Promise<number> {
  const until = new Date();
  const records = await readTurnRecords(tollgate, options.since, {
    maxTurns: options.maxTurns,
    perTurnTimeoutMs: 10_000,
    listTimeoutMs: 120_000,
  });
  const replay = replayPolicy({ candidate: options.candidate, since: options.since, until, ...records });
  console.log(options.json ? JSON.stringify(replay, null, 2) : formatPolicyReplay(options.file, replay).join('\n'));
  return replay.wouldRunDenied.length > 0 ? 1 : 0;
}

/** The report `policy check` prints. */
export function formatPolicyReplay(file: string, replay: PolicyReplay): string[] {
  const lines = [
    `Replayed ${clip(file)} over ${replay.approvalsRead} approvals in ${replay.turnsRead} turns ` +
      `(${replay.since} to ${replay.until}).`,
    '',
  ];
  const section = (title: string, body: string[]) => {
    lines.push(title, ...(body.length > 0 ? body : ['  none']), '');
  };
  section(
    `Would run without asking, though a person denied them (${replay.wouldRunDenied.length}):`,
    replay.wouldRunDenied.map(callLine),
  );
  const saved = replay.approvalsSaved;
  section(
    `Approvals it would save (${saved.count}; runs waited ${formatSeconds(saved.totalSecondsToDecide)} for them):`,
    saved.byTool.map(
      (tool) => `  ${clip(tool.tool)}: ${tool.approved} approved by ${clip(tool.people.join(', ')) || 'nobody named'}`,
    ),
  );
  if (replay.wouldRunUndecided.length > 0)
    section(
      `Would run without asking, though nobody decided them (${replay.wouldRunUndecided.length}):`,
      replay.wouldRunUndecided.map(callLine),
    );
  section(
    'Would still ask, though always approved:',
    replay.alwaysApprovedStillAsked.map(
      (tool) =>
        `  ${clip(tool.tool)}: approved ${tool.approved} of ${tool.approved} by ${clip(tool.people.join(', ')) || 'nobody named'}`,
    ),
  );
  section(
    'Would newly ask (calls made without asking):',
    replay.newlyAsked.map((tool) => `  ${clip(tool.tool)}: ${tool.calls} ${tool.calls === 1 ? 'call' : 'calls'}`),
  );
  if (replay.decidedOtherwise.length > 0)
    section(
      `Decisions its rules would not have taken as they were (${replay.decidedOtherwise.length}):`,
      replay.decidedOtherwise.map(callLine),
    );
  if (replay.autonomousTurnsRefused.length > 0)
    section(
      `Turns that ran with autoApprove, which it does not allow (${replay.autonomousTurnsRefused.length}):`,
      replay.autonomousTurnsRefused.map((workflowId) => `  ${clip(workflowId)}`),
    );
  if (replay.unknown.length > 0)
    section(
      'Not known from the records:',
      replay.unknown.map((line) => `  ${clip(line)}`),
    );
  lines.push(
    replay.wouldRunDenied.length > 0
      ? `FAIL: the candidate would have run ${replay.wouldRunDenied.length} ${replay.wouldRunDenied.length === 1 ? 'call' : 'calls'} a person denied.`
      : 'OK: the candidate would not have run any call a person denied.',
  );
  return lines;
}

function callLine(call: ReplayedCall): string {
  const who = call.approver ? ` by ${clip(call.approver)}` : '';
  const reason = call.reason ? ` ("${clip(call.reason)}")` : '';
  return (
    `  ${clip(call.toolName)} ${clip(argumentsLine(call.input, 80))}: ${call.decision}${who}${reason} at ${call.decidedAt}, ` +
    `turn ${clip(call.workflowId)}\n    ${clip(call.because)}`
  );
}

function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}
