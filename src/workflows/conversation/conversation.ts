import {
  allHandlersFinished,
  ApplicationFailure,
  ChildWorkflowFailure,
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
import type { TurnOutcome } from '../../activities/await-turn-outcome';
import type {
  AgentTurnResult,
  ConversationInput,
  ModelMessage,
  SendMessageInput,
  TranscriptPointer,
} from '../../protocol';
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
import { ConversationPendingView } from './conversation-pending-view';
import { historyIsLarge } from '../history-is-large';
import { loadSchemaChecks } from '../guards/load-schema-checks';
import { messageOfThrown } from '../guards/text-of-value';
import { answerRetiredPatch, retiredPatches } from '../retired-patches';

/** The reason pending calls are denied with when a new message supersedes them. */
export const supersededReason = 'superseded by a new message';

/**
 * Patch id: turns are started with parent close policy ABANDON, and the conversation continues as new while a
 * turn waits when its history grows large, learning the turn's outcome from Temporal afterwards.
 */
const continuesDuringTurnsPatch = 'conversation-continues-during-turns';

/** The wait for a turn's outcome after the conversation continued as new; it heartbeats while the turn waits. */
const { awaitTurnOutcome } = proxyActivities<TollgateActivities>({
  startToCloseTimeout: '365 days',
  heartbeatTimeout: '2m',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

/** Messages the state query shows; the whole conversation is in the content store. */
const recentMessagesKept = 100;

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
  const conversationId = workflowInfo().workflowId;
  const continuesDuringTurns = patched(continuesDuringTurnsPatch);
  let carriedTurn = continuesDuringTurns ? runningTurnOf(input, conversationId) : undefined;
  let transcript: TranscriptPointer = input.transcript ?? { tail: [] };
  const recent: ModelMessage[] = [...(input.recent ?? [])];
  let turnCount = input.turnCount ?? 0;
  const queued: Array<SendMessageInput & { turnId: string }> = [];
  // Turn numbers are given out in order: the running turn is number `turnCount`, the queue follows it.
  const nextTurnId = () => `${conversationId}/turn-${turnCount + queued.length + 1}`;
  for (const message of input.queued ?? []) queued.push({ ...message, turnId: nextTurnId() });
  const startedTurns = new Set<string>();
  let currentTurnId: string | undefined;
  const pendingView = new ConversationPendingView();
  let lastFailure: { turnId: string; message: string } | undefined;
  let turnsThisRun = 0;

  const remember = (messages: readonly ModelMessage[]) => {
    recent.push(...messages);
    recent.splice(0, Math.max(0, recent.length - recentMessagesKept));
  };

  setHandler(conversationStateQuery, () => ({
    conversationId,
    history: recent,
    transcript,
    ...(currentTurnId !== undefined && { currentTurnId }),
    pending: pendingView.pending(),
    queued,
    turnCount,
    ...(lastFailure && { lastFailure }),
    ...(pendingView.refusedCount() > 0 && { refusedSignals: pendingView.refusedCount() }),
  }));

  // Only the running turn sends it, in one shape; see ConversationPendingView for what a forged one can do.
  setHandler(turnPendingApprovalsSignal, (payload: unknown) => pendingView.receive(payload));

  setHandler(
    sendMessageUpdate,
    async (message) => {
      const turnId = nextTurnId();
      const waitsBehindAnother = queued.length > 0 || currentTurnId !== undefined;
      queued.push({ ...message, turnId });
      if (currentTurnId && pendingView.pending().length > 0 && input.onMessageWhilePending === 'supersede') {
        // The turn denies what it waits for itself, whoever may approve it: denying needs no rights.
        await getExternalWorkflowHandle(currentTurnId).signal(supersedeTurnSignal, { reason: supersededReason });
      }
      // A message that can start now returns once its turn has started; a queued one returns at once.
      if (!waitsBehindAnother) await condition(() => startedTurns.has(turnId) || lastFailure?.turnId === turnId);
      return { turnId, queued: waitsBehindAnother };
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

  for (;;) {
    if (carriedTurn) {
      // The turn an earlier run started and was waiting for when it continued as new.
      const { turnId, before, userMessage, shown } = carriedTurn;
      carriedTurn = undefined;
      currentTurnId = turnId;
      pendingView.resumeTurn(turnId, shown);
      try {
        const outcome = await untilOutcome(awaitTurnOutcome({ turnId }), { turnId, before, userMessage });
        if (outcome.type === 'failed') throw outcome;
        remember(outcome.result.messages);
        transcript = transcriptAfter(outcome.result, before, userMessage);
      } catch (error) {
        if (isContinueAsNew(error)) throw error;
        failed(turnId, error, before, userMessage);
      } finally {
        currentTurnId = undefined;
        pendingView.endTurn();
      }
      continue;
    }
    // Continue as new between turns, so no approval is pending; queued messages go along. A handler
    // still waiting for its turn to start must not be cut off, so that turn starts first.
    const timeToContinue = () => shouldContinueAsNew() && allHandlersFinished();
    await condition(() => queued.length > 0 || timeToContinue());
    if (timeToContinue()) await continueWith();
    const message = queued.shift() as SendMessageInput & { turnId: string };
    const userMessage: ModelMessage = { role: 'user', content: message.content };
    remember([userMessage]);
    turnCount += 1;
    turnsThisRun += 1;
    currentTurnId = message.turnId;
    pendingView.startTurn(message.turnId);
    const before = transcript;
    try {
      const turn = await startChild(agentTurn, {
        workflowId: message.turnId,
        args: [
          {
            ...input.turn,
            ...(before.head !== undefined && { transcript: before.head }),
            messages: [...before.tail, userMessage],
            ...(message.requester !== undefined && { requester: message.requester }),
          },
        ],
        typedSearchAttributes: [{ key: pendingApprovalsSearchAttribute, value: [] }],
        // A turn outlives the run of the conversation that started it (a continue-as-new while it waits).
        ...(continuesDuringTurns && { parentClosePolicy: ParentClosePolicy.ABANDON }),
      });
      startedTurns.add(message.turnId);
      const result = continuesDuringTurns
        ? await untilOutcome(turn.result(), { turnId: message.turnId, before, userMessage })
        : await turn.result();
      remember(result.messages);
      transcript = transcriptAfter(result, before, userMessage);
    } catch (error) {
      if (isContinueAsNew(error)) throw error;
      failed(message.turnId, error, before, userMessage);
    } finally {
      currentTurnId = undefined;
      pendingView.endTurn();
    }
  }

  /** Records a turn that failed; a failed turn keeps what it did, so tools that already ran stay in the history. */
  function failed(turnId: string, error: unknown, before: TranscriptPointer, userMessage: ModelMessage): void {
    lastFailure = { turnId, message: failureMessage(error) };
    const kept = keptByFailedTurn(error);
    remember(kept?.messages ?? []);
    transcript = kept?.transcript ?? { ...before, tail: [...before.tail, userMessage, ...(kept?.messages ?? [])] };
  }

  /**
   * The turn's outcome; or, should the conversation's history grow large first (a flood of signals), a
   * continue-as-new that carries the running turn along, once no handler is in flight.
   */
  async function untilOutcome<T>(
    outcome: Promise<T>,
    running: { turnId: string; before: TranscriptPointer; userMessage: ModelMessage },
  ): Promise<T> {
    let finished = false;
    const done = outcome.finally(() => (finished = true));
    await Promise.race([done, condition(() => finished || (historyIsLarge() && allHandlersFinished()))]);
    if (!finished) await continueWith({ ...running, shown: pendingView.snapshot() });
    return outcome;
  }

  async function continueWith(runningTurn?: ConversationInput['runningTurn']): Promise<never> {
    return continueAsNew<typeof conversation>({
      ...(input.turn && { turn: input.turn }),
      ...(input.onMessageWhilePending && { onMessageWhilePending: input.onMessageWhilePending }),
      ...(input.continueAsNewAfterTurns !== undefined && { continueAsNewAfterTurns: input.continueAsNewAfterTurns }),
      transcript,
      recent,
      queued: queued.map(({ turnId: _turnId, ...message }) => message),
      turnCount,
      ...(runningTurn && { runningTurn }),
    });
  }

  function shouldContinueAsNew(): boolean {
    const limit = input.continueAsNewAfterTurns;
    return workflowInfo().continueAsNewSuggested || (limit !== undefined && turnsThisRun >= limit);
  }
}

/** Where the conversation is once a turn has answered. */
function transcriptAfter(
  result: AgentTurnResult,
  before: TranscriptPointer,
  userMessage: ModelMessage,
): TranscriptPointer {
  return result.transcript ?? { ...before, tail: [...before.tail, userMessage, ...result.messages] };
}

/**
 * The running turn an earlier run of this conversation carried over. Taken up only by a run the server continued
 * as new, and only for one of this conversation's own turns: a caller's input never points it at another workflow.
 */
function runningTurnOf(input: ConversationInput, conversationId: string): ConversationInput['runningTurn'] {
  const running = input.runningTurn;
  if (!running || workflowInfo().continuedFromExecutionRunId === undefined) return undefined;
  const prefix = `${conversationId}/turn-`;
  const number = running.turnId.slice(prefix.length);
  return running.turnId.startsWith(prefix) && /^[1-9][0-9]*$/.test(number) ? running : undefined;
}

/** The conversation continuing as new while it waited for a turn: not the turn's failure. */
function isContinueAsNew(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'ContinueAsNew';
}

/** A turn's failure as the conversation learned it: from its child handle, or from `awaitTurnOutcome`. */
function isOutcomeFailure(error: unknown): error is Extract<TurnOutcome, { type: 'failed' }> {
  return typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'failed';
}

function failureMessage(error: unknown): string {
  if (isOutcomeFailure(error)) return error.message;
  const cause = error instanceof ChildWorkflowFailure ? error.cause : error;
  return typeof (cause as { message?: unknown } | undefined)?.message === 'string'
    ? (cause as Error).message
    : messageOfThrown(error);
}

/** The messages and transcript a failed turn sent along with its failure. */
function keptByFailedTurn(error: unknown): { messages: ModelMessage[]; transcript?: TranscriptPointer } | undefined {
  if (isOutcomeFailure(error)) return error.kept;
  const cause = error instanceof ChildWorkflowFailure ? error.cause : undefined;
  const details = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
  if (!details || typeof details !== 'object') return undefined;
  const { messages, transcript } = details as { messages?: unknown; transcript?: TranscriptPointer };
  return Array.isArray(messages)
    ? { messages: messages as ModelMessage[], ...(transcript && { transcript }) }
    : undefined;
}
