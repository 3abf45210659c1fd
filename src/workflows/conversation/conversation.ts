import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { TollgateActivities } from '../../activities/activity-types';
import type { AgentTurnResult, ConversationInput } from '../../protocol';
import { agentTurn } from '../turn/agent-turn';
import {
  conversationStateQuery,
  pendingApprovalsSearchAttribute,
  sendMessageUpdate,
  supersedeTurnSignal,
  turnPendingApprovalsSignal,
} from '../definitions';
import { inspectPayload, toolDataPayloadLimits } from '../guards/bounded-payload';
import { conversationInputProblem } from '../guards/conversation-input-problem';
import { historyIsLarge } from '../history-is-large';
import { loadSchemaChecks } from '../guards/load-schema-checks';
import { answerRetiredPatch, retiredPatches } from '../retired-patches';
import { conversationPatches, ConversationState, type RunningTurn, supersededReason } from './conversation-state';

export { supersededReason } from './conversation-state';

/** The wait for a turn's outcome after the conversation continued as new; it heartbeats while the turn waits. */
const { awaitTurnOutcome } = proxyActivities<TollgateActivities>({
  startToCloseTimeout: '365 days',
  heartbeatTimeout: '2m',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

/**
 * A conversation: answers each user message with an `agentTurn` child workflow whose id is
 * `<conversationId>/turn-<n>`, one at a time. The history lives in Tollgate's content store: each
 * turn gets a reference to it and the new message, never a copy of the whole. It continues as new
 * between turns (never while a turn waits on approvals), carrying the reference and any queue.
 *
 * @example
 * // From a client (TollgateClient.sendMessage starts the conversation on its first message):
 * await tollgate.sendMessage('chat-1', { content: 'run ls' }, { onMessageWhilePending: 'wait' });
 */
export async function conversation(input: ConversationInput = {}): Promise<void> {
  answerRetiredPatch(retiredPatches.conversation);
  // A caller on Temporal can start a conversation with anything: fail it clearly rather than in every task.
  const problem = conversationInputProblem(input);
  if (problem)
    throw ApplicationFailure.nonRetryable(`Invalid conversation input: ${problem}.`, 'InvalidConversationInput');
  return new Conversation(input).run();
}

/** One run of a conversation: its handlers, and {@link run}, which reads top to bottom. What it holds is a {@link ConversationState}. */
class Conversation {
  private readonly state: ConversationState;
  private readonly continuesDuringTurns: boolean;

  constructor(input: ConversationInput) {
    const conversationId = workflowInfo().workflowId;
    this.continuesDuringTurns = patched(conversationPatches.continuesDuringTurns);
    const state = (this.state = new ConversationState(conversationId, input, {
      continuesDuringTurns: this.continuesDuringTurns,
      continuedAsNew: workflowInfo().continuedFromExecutionRunId !== undefined,
    }));

    setHandler(conversationStateQuery, () => state.view());

    // Only the running turn sends it, in one shape; see ConversationPendingView for what a forged one can do.
    setHandler(turnPendingApprovalsSignal, (payload: unknown) => state.pendingView.receive(payload));

    setHandler(
      sendMessageUpdate,
      async (message) => {
        const { turnId, queued } = state.receive(message);
        const superseded = state.turnToSupersede();
        if (superseded) {
          // The turn denies what it waits for itself, whoever may approve it: denying needs no rights.
          await getExternalWorkflowHandle(superseded).signal(supersedeTurnSignal, { reason: supersededReason });
        }
        // A message that can start now returns once its turn has started; a queued one returns at once.
        if (!queued) await condition(() => state.hasStarted(turnId));
        return { turnId, queued };
      },
      {
        // Validators are not replayed, so this schema may change without touching running conversations.
        validator: (message) => {
          const inspection = inspectPayload(message, toolDataPayloadLimits);
          if (!inspection.bounded) {
            throw ApplicationFailure.nonRetryable(`Invalid sendMessage input: ${inspection.reason}.`, 'InvalidMessage');
          }
          loadSchemaChecks().checkSendMessage(message);
        },
      },
    );
  }

  /** One turn at a time, forever: the turn carried over from the run before, or the next queued message's. */
  async run(): Promise<never> {
    const { state } = this;
    for (;;) {
      const running = state.takeCarriedTurn() ?? (await this.nextTurn());
      try {
        state.answered(running, await this.outcome(running));
      } catch (error) {
        if ((error as Error | undefined)?.name === 'ContinueAsNew') throw error;
        state.failed(running, error);
      } finally {
        state.endTurn();
      }
    }
  }

  /**
   * Waits for a message, continuing as new first when it is time: between turns, so no approval is pending, with
   * queued messages along. A handler still waiting for its turn to start must not be cut off, so that turn starts first.
   */
  private async nextTurn(): Promise<RunningTurn> {
    const { state } = this;
    const timeToContinue = () =>
      state.shouldContinueAsNew(workflowInfo().continueAsNewSuggested) && allHandlersFinished();
    await condition(() => state.queued.length > 0 || timeToContinue());
    if (timeToContinue()) await this.continueWith();
    return state.startNext();
  }

  /** A turn's result: from the turn this run starts, or, for a carried-over turn, from `awaitTurnOutcome`. */
  private async outcome(running: RunningTurn): Promise<AgentTurnResult> {
    if (running.carried) {
      const outcome = await this.untilOutcome(awaitTurnOutcome({ turnId: running.turnId }), running);
      if (outcome.type === 'failed') throw outcome;
      return outcome.result;
    }
    const turn = await startChild(agentTurn, {
      workflowId: running.turnId,
      args: [this.state.turnInput(running)],
      typedSearchAttributes: [{ key: pendingApprovalsSearchAttribute, value: [] }],
      // A turn outlives the run of the conversation that started it (a continue-as-new while it waits).
      ...(this.continuesDuringTurns && { parentClosePolicy: ParentClosePolicy.ABANDON }),
    });
    this.state.started(running.turnId);
    return this.continuesDuringTurns ? await this.untilOutcome(turn.result(), running) : await turn.result();
  }

  /**
   * The turn's outcome; or, should the conversation's history grow large first (a flood of signals), a
   * continue-as-new that carries the running turn along, once no handler is in flight.
   */
  private async untilOutcome<T>(outcome: Promise<T>, running: RunningTurn): Promise<T> {
    let finished = false;
    const done = outcome.finally(() => (finished = true));
    await Promise.race([done, condition(() => finished || (historyIsLarge() && allHandlersFinished()))]);
    if (!finished) await this.continueWith(running);
    return outcome;
  }

  private async continueWith(running?: RunningTurn): Promise<never> {
    return continueAsNew<typeof conversation>(this.state.continueAsNewInput(running));
  }
}
