import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import {
  conversationInputSchema,
  sendMessageInputSchema,
  type ConversationInput,
  type ModelMessage,
  type PendingToolApproval,
  type SendMessageInput,
} from '../../protocol';
import { agentTurn } from '../agent-turn';
import {
  conversationStateQuery,
  pendingApprovalsSearchAttribute,
  sendMessageUpdate,
  toolApprovalResponseSignal,
  turnPendingApprovalsSignal,
} from '../definitions';

/** The reason pending calls are denied with when a new message supersedes them. */
const supersededReason = 'superseded by a new message';

/**
 * A conversation: holds the history and answers each user message with an `agentTurn` child
 * workflow whose id is `<conversationId>/turn-<n>`, one at a time. It continues as new between
 * turns (never while a turn waits on approvals), carrying the history and any queued messages.
 *
 * @example
 * // From a client (TollgateClient.sendMessage starts the conversation on its first message):
 * await tollgate.sendMessage('chat-1', { content: 'run ls' }, { onMessageWhilePending: 'wait' });
 */
export async function conversationV1(rawInput: ConversationInput = {}): Promise<void> {
  const parsed = conversationInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(
      `Invalid conversation input: ${z.prettifyError(parsed.error)}`,
      'InvalidConversationInput',
    );
  }
  const input = parsed.data;
  const conversationId = workflowInfo().workflowId;
  const history: ModelMessage[] = [...(input.history ?? [])];
  let turnCount = input.turnCount ?? 0;
  const queued: Array<SendMessageInput & { turnId: string }> = [];
  // Turn numbers are given out in order: the running turn is number `turnCount`, the queue follows it.
  const nextTurnId = () => turnIdOf(turnCount + queued.length + 1);
  for (const message of input.queued ?? []) queued.push({ ...message, turnId: nextTurnId() });
  const startedTurns = new Set<string>();
  let currentTurnId: string | undefined;
  let pending: PendingToolApproval[] = [];
  let lastFailure: { turnId: string; message: string } | undefined;
  let turnsThisRun = 0;

  function turnIdOf(turnNumber: number): string {
    return `${conversationId}/turn-${turnNumber}`;
  }

  setHandler(conversationStateQuery, () => ({
    conversationId,
    history,
    ...(currentTurnId !== undefined && { currentTurnId }),
    pending,
    queued,
    turnCount,
    ...(lastFailure && { lastFailure }),
  }));

  setHandler(turnPendingApprovalsSignal, ({ turnId, pending: turnPending }) => {
    if (turnId === currentTurnId) pending = turnPending;
  });

  setHandler(
    sendMessageUpdate,
    async (message) => {
      const turnId = nextTurnId();
      const waitsBehindAnother = queued.length > 0 || currentTurnId !== undefined;
      queued.push({ ...message, turnId });
      if (currentTurnId && pending.length > 0 && input.onMessageWhilePending === 'supersede') {
        const turn = getExternalWorkflowHandle(currentTurnId);
        for (const approval of pending) {
          await turn.signal(toolApprovalResponseSignal, {
            approvalId: approval.approvalId,
            approved: false,
            reason: supersededReason,
            approver: 'conversation',
          });
        }
      }
      // A message that can start now returns once its turn has started; a queued one returns at once.
      if (!waitsBehindAnother) await condition(() => startedTurns.has(turnId) || lastFailure?.turnId === turnId);
      return { turnId, queued: waitsBehindAnother };
    },
    {
      validator: (message) => {
        const check = sendMessageInputSchema.safeParse(message);
        if (!check.success) {
          throw ApplicationFailure.nonRetryable(
            `Invalid sendMessage input: ${z.prettifyError(check.error)}`,
            'InvalidMessage',
          );
        }
      },
    },
  );

  for (;;) {
    // Continue as new between turns, so no approval is pending; queued messages go along. A handler
    // still waiting for its turn to start must not be cut off, so that turn starts first.
    const timeToContinue = () => shouldContinueAsNew() && allHandlersFinished();
    await condition(() => queued.length > 0 || timeToContinue());
    if (timeToContinue()) {
      await continueAsNew<typeof conversationV1>({
        ...input,
        history,
        queued: queued.map(({ turnId: _turnId, ...message }) => message),
        turnCount,
      });
    }
    const message = queued.shift() as SendMessageInput & { turnId: string };
    history.push({ role: 'user', content: message.content });
    turnCount += 1;
    turnsThisRun += 1;
    currentTurnId = message.turnId;
    pending = [];
    try {
      const turn = await startChild(agentTurn, {
        workflowId: message.turnId,
        args: [
          {
            ...input.turn,
            messages: history,
            ...(message.requester !== undefined && { requester: message.requester }),
          },
        ],
        typedSearchAttributes: [{ key: pendingApprovalsSearchAttribute, value: [] }],
      });
      startedTurns.add(message.turnId);
      const result = await turn.result();
      history.push(...result.messages);
    } catch (error) {
      lastFailure = { turnId: message.turnId, message: (error as Error).message };
    } finally {
      currentTurnId = undefined;
      pending = [];
    }
  }

  function shouldContinueAsNew(): boolean {
    const limit = input.continueAsNewAfterTurns;
    return workflowInfo().continueAsNewSuggested || (limit !== undefined && turnsThisRun >= limit);
  }
}
