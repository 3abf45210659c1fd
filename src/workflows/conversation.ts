import {
  allHandlersFinished,
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { ConversationInput, ModelMessage, SendMessageInput, TranscriptPointer } from '../protocol';
import { agentTurn } from './agent-turn';
import {
  conversationStateQuery,
  pendingApprovalsSearchAttribute,
  sendMessageUpdate,
  supersedeTurnSignal,
  turnPendingApprovalsSignal,
} from './definitions';
import { inspectPayload, toolDataPayloadLimits } from './bounded-payload';
import { ConversationPendingView } from './conversation-pending-view';
import { loadConversationV1, loadSchemaChecks } from './load-lazily';
import { patches, runsV2 } from './turn-version';

/** The reason pending calls are denied with when a new message supersedes them. */
export const supersededReason = 'superseded by a new message';

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
  runsV2(patches.conversationV2, 'retired');
  return runConversation(input);
}

/**
 * `conversation` for a worker that still finishes conversations started before `conversation-v2` on the
 * frozen v1 code (`v1Turns: 'run'`); `./with-v1-turns` exports it under the workflow type `conversation`.
 */
export async function conversationWithV1Turns(input: ConversationInput = {}): Promise<void> {
  if (!runsV2(patches.conversationV2, 'run')) return loadConversationV1().conversationV1(input);
  return runConversation(input);
}

async function runConversation(input: ConversationInput): Promise<void> {
  const conversationId = workflowInfo().workflowId;
  // A conversation that continued as new from the first version carries its history inline.
  let transcript: TranscriptPointer = input.transcript ?? { tail: [...(input.history ?? [])] };
  const recent: ModelMessage[] = [...(input.recent ?? input.history?.slice(-recentMessagesKept) ?? [])];
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
    // Continue as new between turns, so no approval is pending; queued messages go along. A handler
    // still waiting for its turn to start must not be cut off, so that turn starts first.
    const timeToContinue = () => shouldContinueAsNew() && allHandlersFinished();
    await condition(() => queued.length > 0 || timeToContinue());
    if (timeToContinue()) {
      await continueAsNew<typeof conversation>({
        ...(input.turn && { turn: input.turn }),
        ...(input.onMessageWhilePending && { onMessageWhilePending: input.onMessageWhilePending }),
        ...(input.continueAsNewAfterTurns !== undefined && { continueAsNewAfterTurns: input.continueAsNewAfterTurns }),
        transcript,
        recent,
        queued: queued.map(({ turnId: _turnId, ...message }) => message),
        turnCount,
      });
    }
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
      });
      startedTurns.add(message.turnId);
      const result = await turn.result();
      remember(result.messages);
      transcript = result.transcript ?? { ...before, tail: [...before.tail, userMessage, ...result.messages] };
    } catch (error) {
      lastFailure = { turnId: message.turnId, message: failureMessage(error) };
      // A failed turn keeps what it did, so tools that already ran stay in the history.
      const kept = keptByFailedTurn(error);
      remember(kept?.messages ?? []);
      transcript = kept?.transcript ?? { ...before, tail: [...before.tail, userMessage, ...(kept?.messages ?? [])] };
    } finally {
      currentTurnId = undefined;
      pendingView.endTurn();
    }
  }

  function shouldContinueAsNew(): boolean {
    const limit = input.continueAsNewAfterTurns;
    return workflowInfo().continueAsNewSuggested || (limit !== undefined && turnsThisRun >= limit);
  }
}

function failureMessage(error: unknown): string {
  const cause = error instanceof ChildWorkflowFailure ? error.cause : error;
  return (cause as Error | undefined)?.message ?? String(error);
}

/** The messages and transcript a failed turn sent along with its failure. */
function keptByFailedTurn(error: unknown): { messages: ModelMessage[]; transcript?: TranscriptPointer } | undefined {
  const cause = error instanceof ChildWorkflowFailure ? error.cause : undefined;
  const details = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
  if (!details || typeof details !== 'object') return undefined;
  const { messages, transcript } = details as { messages?: unknown; transcript?: TranscriptPointer };
  return Array.isArray(messages)
    ? { messages: messages as ModelMessage[], ...(transcript && { transcript }) }
    : undefined;
}
