import { ApplicationFailure, condition, getExternalWorkflowHandle, setHandler, uuid4 } from '@temporalio/workflow';
import type { RecordedDecision, ToolApprovalDecision } from '../../protocol';
import { turnRevisions } from '../../protocol/turn-plan';
import {
  decisionErrorTypes,
  subAgentDecisionsAnswerSignal,
  subAgentDecisionsSignal,
  type SubAgentDecisionsAnswer,
} from '../definitions';
import { ancestorsOf, readSubAgentDecisionsRequest } from '../guards/read-sub-agent-decisions';
import { messageOfThrown } from '../guards/text-of-value';
import { pathOf } from './sub-agent';
import type { TurnState } from './turn-state';

/** How long a turn waits for its sub-agent's answer to an update it passed on before it refuses the update. */
export const subAgentAnswerWaitMs = 30_000;

const knownErrorTypes = new Set<string>(Object.values(decisionErrorTypes));

/** Whether the turn passes updates for its sub-agents' approvals on (turn revision 17). */
function passesUpdatesOn(turn: TurnState): boolean {
  return turn.revision() >= turnRevisions.subAgentUpdatesPassedOn;
}

/**
 * The sub-agent workflow that waits for every approval of an update's batch, when this turn passes the update on
 * (turn revision 17); undefined when none is a sub-agent's (the turn decides them itself), or in a turn planned before
 * 17 (which refuses the update, naming the sub-agent). A batch that mixes workflows is refused: the sub-agent judges
 * its batch as a whole, as it would an update sent to it.
 */
function holderOfBatch(turn: TurnState, decisions: readonly ToolApprovalDecision[]): string | undefined {
  if (!passesUpdatesOn(turn)) return undefined;
  const holders = new Set(decisions.map(({ approvalId }) => turn.subAgents.holderOf(approvalId)));
  if (holders.size === 1) return [...holders][0];
  const named = [...holders].map((holder) => (holder === undefined ? 'this turn' : `"${holder}"`));
  throw ApplicationFailure.nonRetryable(
    `The update decides approvals that wait in different workflows (${named.join(', ')}); send one update for each.`,
    decisionErrorTypes.invalid,
  );
}

/**
 * What the turn's `respondToToolApprovals` handler uses to pass an update for a sub-agent's approvals on (turn
 * revision 17): `accepts` in the validator and again in the handler, `pass` to send it and wait for the answer.
 */
export function subAgentUpdateRelay(turn: TurnState): {
  accepts: (decisions: readonly ToolApprovalDecision[]) => boolean;
  pass: (decisions: readonly ToolApprovalDecision[], request: unknown) => Promise<RecordedDecision[]>;
} {
  return {
    accepts: (decisions) => holderOfBatch(turn, decisions) !== undefined,
    pass: (decisions, request) => passUpdateOn(turn, decisions, request),
  };
}

/**
 * Passes an update's decisions to the sub-agent that waits for them and answers as it does: the sub-agent judges them
 * as an update sent to it (the approver's rights, the requester, a signature bound to its own workflow), records what
 * it accepts and signals back its result or its refusal, which this update then gives. Refused, with what happened,
 * when the sub-agent (or the running sub-agent it waits under) ends before it answers, or when no answer comes within
 * {@link subAgentAnswerWaitMs}.
 */
async function passUpdateOn(
  turn: TurnState,
  decisions: readonly ToolApprovalDecision[],
  request: unknown,
): Promise<RecordedDecision[]> {
  const holder = holderOfBatch(turn, decisions) as string;
  const approvalId = decisions[0]?.approvalId as string;
  const child = turn.subAgents.listerOf(approvalId) as string;
  const requestId = uuid4();
  const ended = () =>
    ApplicationFailure.nonRetryable(
      `Approval "${approvalId}" waited in sub-agent workflow "${holder}", which ended before it took the decision; ` +
        'nothing was recorded here. Send the decision to the workflow the approvalId names to read how it ended.',
      decisionErrorTypes['unknown-approval'],
    );
  turn.subAgentAnswers.expect(requestId);
  try {
    try {
      await getExternalWorkflowHandle(holder).signal(subAgentDecisionsSignal, {
        requestId,
        replyTo: turn.workflowId,
        responses: (request as { responses: unknown }).responses,
      });
    } catch {
      throw ended();
    }
    const answerOf = () => turn.subAgentAnswers.answerOf(requestId);
    const waited = await condition(
      () => answerOf() !== undefined || !turn.subAgents.isRunning(child),
      subAgentAnswerWaitMs,
    );
    const answer = answerOf();
    if (answer === undefined && waited) throw ended();
    if (answer === undefined) {
      throw ApplicationFailure.nonRetryable(
        `Sub-agent workflow "${holder}" did not answer the decision on "${approvalId}" within ` +
          `${subAgentAnswerWaitMs / 1000} s; it may still take it. Read its pending approvals before deciding again.`,
        decisionErrorTypes['unknown-approval'],
      );
    }
    if ('refused' in answer) throw ApplicationFailure.nonRetryable(answer.refused.message, answer.refused.type);
    return answer.recorded;
  } finally {
    turn.subAgentAnswers.forget(requestId);
  }
}

/**
 * A sub-agent's side (turn revision 17): takes an update its parent or an ancestor passed on
 * (`readSubAgentDecisionsRequest`: bounded, shape-checked, answered only to one of its own ancestors), judges and
 * records it with `decide` — what its own `respondToToolApprovals` handler does — and signals back the result or the
 * refusal. A request it cannot read is recorded as ignored and answered by nobody. Also takes the answers to the
 * updates this turn passed on to its own sub-agents (any other answer is recorded as ignored). Turns planned before
 * 17 read neither signal, as before.
 */
export function registerSubAgentDecisionHandlers(
  turn: TurnState,
  decide: (request: unknown) => RecordedDecision[] | Promise<RecordedDecision[]>,
): void {
  setHandler(subAgentDecisionsSignal, async (payload: unknown) => {
    if (!passesUpdatesOn(turn)) return;
    const request = readSubAgentDecisionsRequest(payload, ancestorsOf(turn.workflowId, pathOf(turn).length));
    if ('invalid' in request) {
      const message = `Invalid subAgentDecisions signal: ${request.invalid}.`;
      turn.approvals.book.ignore(payload, 'invalid', message, new Date());
      return;
    }
    let answer: SubAgentDecisionsAnswer;
    try {
      answer = { requestId: request.requestId, recorded: await decide({ responses: request.responses }) };
    } catch (error) {
      answer = { requestId: request.requestId, refused: refusalOf(error) };
    }
    // If the turn that asked has ended, nobody waits for the answer.
    await getExternalWorkflowHandle(request.replyTo)
      .signal(subAgentDecisionsAnswerSignal, answer)
      .catch(() => undefined);
  });
  setHandler(subAgentDecisionsAnswerSignal, (payload: unknown) => {
    if (!passesUpdatesOn(turn)) return;
    const refusal = turn.subAgentAnswers.receive(payload);
    if (refusal !== undefined) {
      turn.approvals.book.ignore(payload, 'invalid', `Invalid subAgentDecisionsAnswer signal: ${refusal}.`, new Date());
    }
  });
}

/** An update's refusal as an answer carries it: its message, and its error type when it is one of the update's. */
function refusalOf(error: unknown): { message: string; type: string } {
  const type = error instanceof ApplicationFailure ? error.type : undefined;
  return {
    message: messageOfThrown(error),
    type: type != null && knownErrorTypes.has(type) ? type : decisionErrorTypes.invalid,
  };
}
