import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  setHandler,
} from '@temporalio/workflow';
import type { ModelStepOutput } from '../../activities/turn-activity-types';
import type { AgentTurnInput, AgentTurnResult, ToolResultPart } from '../../protocol';
import { turnRevisions } from '../../protocol/turn-plan';
import { turnInputProblem } from '../guards/turn-input-problem';
import {
  agentTurnEventsQuery,
  agentTurnStateQuery,
  pendingToolApprovalsQuery,
  supersedeTurnSignal,
} from '../definitions';
import { readSupersedeRequest } from '../guards/read-supersede-request';
import { messageOfThrown } from '../guards/text-of-value';
import { registerDecisionHandlers } from '../approvals/register-decision-handlers';
import { answerRetiredPatch, retiredPatches } from '../retired-patches';
import { LastToolWithNextStep, runLastToolWithNextStep } from './run-tool-with-next-step';
import { passDecisionToSubAgent, pathOf, registerSubAgentHandlers, supersedeSubAgents } from './sub-agent';
import { registerSubAgentDecisionHandlers, subAgentUpdateRelay } from './sub-agent-decisions';
import { openApproval, settleCalls, settleStep, settleWaitingCalls, settleWhatNeedsNoPerson } from './settle-step';
import { modelSteps, validateToolInput, validateToolOutput } from './turn-activity-options';
import { carryOverOf, type TurnCarryOver } from './turn-carry-over';
import { StepCalls } from './step-calls';
import { continueTurnAsNew, largeWhileOnlyWaiting, settlingOf, takeUp } from './turn-continue-as-new';
import { carriesApprovals } from './resume-from-messages';
import { resume, settleResumed } from './turn-resume';
import { type Settled, type Settling, TurnState, unsettled, withNextStep } from './turn-state';

/**
 * One agent turn: call the model, run its tool calls (waiting durably for approval where a tool
 * needs it), feed the results back, until the model answers without tool calls or `maxSteps`.
 * `carried` is what an earlier run of the turn handed over when it continued as new.
 *
 * @example
 * const handle = await client.workflow.start(agentTurn, {
 *   taskQueue: 'tollgate',
 *   workflowId: 'turn-42',
 *   args: [{ messages: [{ role: 'user', content: 'run ls' }] }],
 * });
 */
export async function agentTurn(input: AgentTurnInput, carried?: TurnCarryOver): Promise<AgentTurnResult> {
  answerRetiredPatch(retiredPatches.turn);
  refuseUnreadableInput(input);
  return new AgentTurn(input, carried).run();
}

/**
 * Fails the turn at once, clearly, on input that workflow code cannot read (a caller on Temporal can start a turn
 * with anything): reading it would throw in every workflow task, and the turn would never move nor end.
 */
function refuseUnreadableInput(input: unknown): void {
  const problem = turnInputProblem(input);
  if (problem) throw ApplicationFailure.nonRetryable(`Invalid agentTurn input: ${problem}.`, 'InvalidAgentTurnInput');
}

/** A whole number from a query's page argument, read without walking what a caller sent. */
function readCount(page: unknown, key: 'fromMessage' | 'maxMessages'): number | undefined {
  const value = typeof page === 'object' && page !== null ? (page as Record<string, unknown>)[key] : undefined;
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'number' || typeof value === 'string' ? Number(value) : NaN;
  return Math.max(0, Math.floor(number) || 0);
}

/** How long a cancelled or failing turn waits for its sub-agents to end (turn revision 17). */
const subAgentEndWaitMs = 30_000;

/** One turn: its handlers, and {@link run}, which reads top to bottom. What it holds is a {@link TurnState}. */
class AgentTurn {
  private readonly turn: TurnState;

  constructor(input: AgentTurnInput, carriedArgument?: unknown) {
    const turn = (this.turn = new TurnState(input));
    // Taken up before any handler is set, so that no signal waiting for this run meets an empty turn.
    const { carried, refused } = carryOverOf(carriedArgument);
    if (carried) turn.carriedSettling = takeUp(turn, carried);
    if (refused) turn.events.note('policy-note', 0, { detail: refused });
    const { decide } = registerDecisionHandlers({
      book: turn.approvals.book,
      outputs: turn.outputs,
      validateOutput: (toolName, submission) => validateToolOutput({ toolName, ...submission }),
      validateInput: (toolName, input) => validateToolInput({ toolName, input }),
      onOutput: (toolCallId, toolName) =>
        turn.events.note('tool-output-submitted', turn.steps, { toolCallId, toolName }),
      passOn: (payload) => passDecisionToSubAgent(turn, payload),
      holderOf: (approvalId) => turn.subAgents.holderOf(approvalId),
      relay: subAgentUpdateRelay(turn),
    });
    registerSubAgentHandlers(turn);
    registerSubAgentDecisionHandlers(turn, decide);
    setHandler(supersedeTurnSignal, (payload: unknown) => {
      const request = readSupersedeRequest(payload);
      if ('reason' in request) {
        turn.approvals.supersede(request.reason);
        supersedeSubAgents(turn, request.reason);
      } else
        turn.approvals.book.ignore(payload, 'invalid', `Invalid supersedeTurn signal: ${request.invalid}.`, new Date());
    });
    setHandler(pendingToolApprovalsQuery, () => turn.shownPending());
    setHandler(agentTurnEventsQuery, () => turn.events.list());
    setHandler(agentTurnStateQuery, (page) => {
      const from = readCount(page, 'fromMessage') ?? 0;
      const count = readCount(page, 'maxMessages') ?? turn.messages.length;
      return {
        ...turn.result(),
        pending: turn.shownPending(),
        messages: turn.messages.slice(from, from + count),
        messageCount: turn.messages.length,
        status: turn.currentStatus(),
        awaitingOutput: turn.outputs.awaiting(),
        ...(turn.subAgents.working() > 0 && { subAgentsWorking: turn.subAgents.working() }),
      };
    });
  }

  async run(): Promise<AgentTurnResult> {
    const { turn } = this;
    let carried = turn.carriedSettling && settlingOf(turn.carriedSettling);
    if (!carried) turn.events.note('turn-started', 0);
    try {
      if (!carried) {
        // Only messages that carry approvals have anything to resume; the others go to their first model step without
        // awaiting one (the same commands: nothing else runs in a turn's first workflow task).
        if (carriesApprovals(turn.input) && (await resume(turn))) return await this.finish('awaiting-approval');
      } else {
        turn.showPending();
        if (carried.kind === 'resumed') {
          await settleResumed(turn, carried);
          carried = undefined;
        }
      }
      // A model step that ran in one activity with the last tool of the step before it.
      let next: ModelStepOutput | undefined;
      while (carried !== undefined || turn.steps < (turn.settings?.maxSteps ?? Infinity)) {
        let settling: Settling;
        if (carried) {
          // The step an earlier run of this turn was settling when it continued as new.
          settling = carried;
          carried = undefined;
        } else {
          turn.steps += 1;
          let step: ModelStepOutput;
          if (next) step = next;
          else if (this.flatModelStep()) {
            // No `async` wrapper between the turn and its model step (fewer promises for the sandbox to record).
            try {
              step = await this.startModelStep();
            } finally {
              turn.visibility.modelStepStarted(undefined);
            }
          } else step = await this.modelStep();
          next = undefined;
          turn.adopt(step.settings, step.notes);
          turn.events.note('model-called', turn.steps);
          turn.transcript =
            step.head !== undefined
              ? { head: step.head, tail: [] }
              : { ...turn.transcript, tail: [...turn.transcript.tail, { role: 'assistant', content: step.content }] };
          turn.messages.push({ role: 'assistant', content: step.content });
          turn.text = step.text;
          if (step.calls.length === 0) return await this.finish('completed');
          const opened = step.calls.map((plan) => openApproval(turn, plan));
          turn.showPending();
          if (turn.halted()) {
            await settleWhatNeedsNoPerson(turn, step.calls, opened);
            return await this.finish('awaiting-approval');
          }
          settling = { kind: 'step', plans: step.calls, opened, results: step.calls.map(() => unsettled) };
        }
        const revision = turn.revision();
        let results: Settled[];
        if (revision >= turnRevisions.callsWaitWithoutPromises) {
          // Awaited here, not in an `async` helper: the step's one wait is one `condition` and this `await`.
          const calls = new StepCalls(turn, settling);
          const large = () => largeWhileOnlyWaiting(turn, settling);
          while (calls.advance()) {
            if (large()) await continueTurnAsNew(turn, settling);
            await condition(() => calls.moved() || large());
          }
          results = calls.results();
        } else {
          results = await (revision >= turnRevisions.oneWaitPerStep
            ? settleWaitingCalls(turn, settling)
            : revision >= turnRevisions.flatDecisionPath
              ? settleCalls(turn, settling)
              : settleStep(turn, settling));
        }
        const last = results.indexOf(withNextStep);
        if (last >= 0 && revision >= turnRevisions.callsWaitWithoutPromises) {
          // The activity awaited here, without a `then` between it and the turn.
          const run = new LastToolWithNextStep(turn, settling, results, last);
          try {
            next = run.took(await run.running);
            run.ended();
          } catch (error) {
            run.failed();
            throw error;
          }
        } else if (last >= 0) next = await runLastToolWithNextStep(turn, settling, results, last);
        else turn.addToolMessage(settling.plans, settling.opened, results as Array<ToolResultPart | undefined>);
        if (turn.approvals.superseded()) return await this.finish('superseded');
      }
      return await this.finish('max-steps-reached');
    } catch (error) {
      if (isCancellation(error)) await this.cancelled();
      else if ((error as Error | undefined)?.name !== 'ContinueAsNew') await this.failing(error);
      throw this.failure(error);
    }
  }

  /**
   * A cancelled turn (from revision 17) first lets its sub-agents, asked to cancel with it, end (for at most
   * {@link subAgentEndWaitMs}) so that they deny what they wait for themselves rather than be terminated when it
   * closes, then denies what it waits for, with the reason, and stops listing it: the audit of every turn in the tree
   * says how each call ended. Its details and search attributes follow; its signals to the turns above are not sent.
   */
  private async cancelled(): Promise<void> {
    const { turn } = this;
    if (turn.revision() < turnRevisions.subAgentUpdatesPassedOn) return;
    if (turn.subAgents.running().length > 0) {
      await CancellationScope.nonCancellable(() =>
        condition(() => turn.subAgents.running().length === 0, subAgentEndWaitMs),
      );
    }
    if (turn.approvals.book.pending().length === 0) return;
    const path = pathOf(turn);
    turn.approvals.cancel(
      `Cancelled before anyone decided: the turn${path.length > 0 ? ` of sub-agent ${path.join(' → ')}` : ''} was cancelled.`,
    );
    turn.showPending();
  }

  /**
   * A failing turn (from revision 17) supersedes its running sub-agents with why it fails, and lets them end (for at
   * most {@link subAgentEndWaitMs}): they deny what they wait for with that reason, rather than be terminated still
   * waiting when it closes (an approval of its own that expired with `onExpire: 'fail'`, say).
   */
  private async failing(error: unknown): Promise<void> {
    const { turn } = this;
    if (turn.revision() < turnRevisions.subAgentUpdatesPassedOn || turn.subAgents.running().length === 0) return;
    const cause = error instanceof ActivityFailure ? error.cause : error;
    supersedeSubAgents(turn, `The turn above this sub-agent failed: ${messageOfThrown(cause)}`);
    await condition(() => turn.subAgents.running().length === 0, subAgentEndWaitMs);
  }

  /** Calls the model for the turn's current step in an activity of its own, named for the timeline. */
  private async modelStep(): Promise<ModelStepOutput> {
    const { turn } = this;
    try {
      return await this.startModelStep();
    } finally {
      turn.visibility.modelStepStarted(undefined);
    }
  }

  /** Shows the model step as running and starts it; whoever awaits it shows it ended. */
  private startModelStep(): Promise<ModelStepOutput> {
    const { turn } = this;
    turn.visibility.modelStepStarted(turn.steps);
    return modelSteps(turn.input, turn.settings, `model step ${turn.steps}`).runModelStep(turn.stepInput());
  }

  /**
   * Whether the model step is awaited directly, without {@link modelStep}'s `async` wrapper: the first step of a turn
   * (no revision is known yet, and nothing but the turn runs in its first workflow task, so the commands are the same
   * whichever way), and every step from turn revision 18. Later steps of older turns keep the wrapper: a notice's
   * chain may wake in the same workflow task, and its commands keep the order their histories hold.
   */
  private flatModelStep(): boolean {
    const { turn } = this;
    return turn.settings === undefined || turn.revision() >= turnRevisions.oneWaitPerStep;
  }

  /** Ends the turn: waits for handlers and notices in flight, then returns the result. */
  private async finish(status: AgentTurnResult['status']): Promise<AgentTurnResult> {
    const { turn } = this;
    turn.status = status;
    turn.visibility.finished(status);
    turn.showPending();
    turn.events.note('turn-completed', turn.steps, { detail: status });
    // From turn revision 15, a turn with no notices and no handler running ends without waiting on a promise.
    const flat = turn.revision() >= turnRevisions.flatDecisionPath;
    if (!flat || turn.notices.any()) await turn.notices.settled();
    if (!flat || !allHandlersFinished()) await condition(allHandlersFinished);
    return turn.result();
  }

  /**
   * A turn that fails keeps what it did: its messages and transcript travel in the failure's
   * details, so a conversation keeps the tools that already ran.
   */
  private failure(error: unknown): unknown {
    if (isCancellation(error) || (error as Error | undefined)?.name === 'ContinueAsNew') return error;
    const { turn } = this;
    const cause = error instanceof ActivityFailure ? error.cause : error;
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    const message = messageOfThrown(cause);
    turn.events.note('turn-completed', turn.steps, { detail: `failed: ${message}` });
    turn.visibility.finished('failed');
    return ApplicationFailure.create({
      message,
      ...(type != null && { type }),
      nonRetryable: true,
      details: [{ messages: turn.messages, transcript: turn.transcript }],
      ...(error instanceof Error && { cause: error }),
    });
  }
}
