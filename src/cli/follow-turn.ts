import type { TollgateClient } from '../client';
import type { AgentTurnResult, AgentTurnState } from '../protocol';
import { commandName } from './command-name';
import { connectionProblemOf, temporalRetryNotice } from './connection-problem';
import { clip, formatDecision, formatMessage, formatPending } from './format-turn';

const pollIntervalMs = 300;
const retryIntervalMs = 1_000;

/** Where Temporal is, for the retry notices. */
export interface FollowOptions {
  /** Temporal's address as the CLI connects to it. */
  address: string;
  /** Print lines here (stdout by default). */
  print?: (line: string) => void;
}

/**
 * Prints a turn's progress until it ends: messages, what waits for approval, and each decision as it
 * arrives (by tool name). A Temporal or worker restart does not end it: it says so and keeps trying.
 */
export async function followTurn(tollgate: TollgateClient, workflowId: string, options: FollowOptions): Promise<void> {
  const print = options.print ?? ((line: string) => console.log(line));
  const toolNames = new Map<string, string>();
  const toolNameOf = (approvalId: string) => toolNames.get(approvalId);
  let shownMessages = 0;
  const shownApprovals = new Set<string>();
  const shownDecisions = new Set<string>();
  const shownOutcomes = new Set<string>();
  const show = (state: Pick<AgentTurnState, 'messages' | 'pending' | 'audit'>) => {
    for (const entry of [...state.pending, ...state.audit]) toolNames.set(entry.approvalId, entry.toolName);
    for (const message of state.messages.slice(shownMessages))
      for (const line of formatMessage(message, { toolNameOf, shownDecisions })) print(line);
    shownMessages = state.messages.length;
    for (const approval of state.pending) {
      if (shownApprovals.has(approval.approvalId)) continue;
      shownApprovals.add(approval.approvalId);
      print(formatPending(approval).join('\n'));
    }
    for (const entry of state.audit) {
      // A quorum's vote and its final outcome are two lines.
      const key = `${entry.approvalId} ${entry.decision}`;
      if (shownOutcomes.has(key)) continue;
      shownOutcomes.add(key);
      shownDecisions.add(entry.approvalId);
      print(formatDecision(entry));
    }
  };

  // One notice per outage, and one line when it is over, instead of a line per poll.
  let outage: string | undefined;
  const trouble = (error: unknown) => {
    const problem = connectionProblemOf(error);
    const notice =
      problem.type === 'unavailable'
        ? temporalRetryNotice(options.address, clip(problem.detail))
        : `Cannot read turn ${workflowId} yet (${clip(problem.detail)}): is a Tollgate worker running? Retrying…`;
    if (notice !== outage) print(notice);
    outage = notice;
  };
  const recovered = () => {
    if (outage === undefined) return;
    outage = undefined;
    print(`Connected again; following turn ${workflowId}.`);
  };

  // Ctrl-C leaves the turn running (it is durable): say how to pick it up again.
  const leave = () => {
    print(`\nTurn ${workflowId} keeps running. Follow it again: ${commandName()} follow ${workflowId}`);
    process.exit(130);
  };
  process.once('SIGINT', leave);
  try {
    await followUntilDone();
  } finally {
    process.removeListener('SIGINT', leave);
  }

  async function followUntilDone(): Promise<void> {
    let outcome = watchResult(tollgate, workflowId);
    let answered = false;
    for (;;) {
      try {
        show(await tollgate.state(workflowId));
        answered = true;
        recovered();
      } catch (error) {
        if (isNotFound(error)) throw new TurnNotFoundError(workflowId);
        // A brand-new turn can race its first workflow task; anything else is a restart in progress.
        if (answered || outage !== undefined || connectionProblemOf(error).type === 'unavailable') trouble(error);
      }
      const settled = await Promise.race([outcome, sleep(outage === undefined ? pollIntervalMs : retryIntervalMs)]);
      if (settled === undefined) continue;
      if (settled.type === 'lost') {
        trouble(settled.error);
        outcome = watchResult(tollgate, workflowId);
        continue;
      }
      if (settled.type === 'failed') throw settled.error;
      recovered();
      const result = settled.result;
      show(result);
      print(`Turn ${result.status} after ${result.steps} step${result.steps === 1 ? '' : 's'}.`);
      return;
    }
  }
}

/** The turn is not there: a wrong id, or a namespace without it. */
export class TurnNotFoundError extends Error {
  override readonly name = 'TurnNotFoundError';
  constructor(readonly workflowId: string) {
    super(
      `No turn "${workflowId}" in this namespace (see the id \`${commandName()} run\` printed, or the Temporal UI).`,
    );
  }
}

type Watched =
  { type: 'done'; result: AgentTurnResult } | { type: 'failed'; error: Error } | { type: 'lost'; error: unknown };

/** The turn's result; a lost connection is a value, so the caller waits for it again. */
async function watchResult(tollgate: TollgateClient, workflowId: string): Promise<Watched> {
  try {
    return { type: 'done', result: await tollgate.turn(workflowId).result() };
  } catch (error) {
    if (isNotFound(error)) return { type: 'failed', error: new TurnNotFoundError(workflowId) };
    const name = (error as Error).name;
    if (name === 'WorkflowFailedError' || name === 'WorkflowContinuedAsNewError')
      return { type: 'failed', error: error as Error };
    return { type: 'lost', error };
  }
}

function isNotFound(error: unknown): boolean {
  return (error as Error)?.name === 'WorkflowNotFoundError';
}

function sleep(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
}
