import type { UIMessage } from 'ai';
import type { TollgateClient } from '../../client';
import type { ModelMessage, ToolApprovalAuditEntry, TranscriptPointer, UserMessage } from '../../protocol';
import { GatewayError } from '../http/gateway-error';
import { aiSdk } from './ai-sdk';
import { FullOutputs } from './full-outputs';
import { TurnReader } from './read-turn';
import { turnMessageOf } from './turn-message';
import { storedTurnSnapshot } from './turn-snapshot';
import { userMessageParts } from './user-message-parts';

/** How long the running turn may take to answer before the history leaves its message to the resume route. */
const runningTurnWaitMs = 5_000;

/**
 * A chat's whole history as `useChat` shows it: each turn's user message, then its assistant message as the stream
 * rendered it, with the ids the stream used (the assistant message's id is the turn id, so a resume that follows
 * replaces the running turn's message rather than adding a second one). Finished turns come from the conversation's
 * transcript; the running turn from the turn itself, approvals it waits for as `approval-requested`; queued messages
 * last. Large tool outputs come back in full from the content store, as they streamed (their reference stays in
 * `resultProviderMetadata.tollgate.contentRef`).
 *
 * @example
 * const messages = await readChatHistory(tollgate, conversationIdOf(chatId, person));
 * useChat({ id: chatId, messages, resume: true });
 */
export async function readChatHistory(tollgate: TollgateClient, conversationId: string): Promise<UIMessage[]> {
  const state = await tollgate.conversationState(conversationId);
  const running = state.currentTurnId;
  // The running turn's user message is in the recent history only; a first-version conversation keeps everything there.
  const lastUser = state.history.findLastIndex((message) => message.role === 'user');
  const runningUser = running !== undefined && lastUser >= 0 ? (state.history[lastUser] as UserMessage) : undefined;
  // Only outputs of this conversation's own turns come back in full.
  const ownTurn = (turn: string | undefined) => turn === undefined || turn.startsWith(`${conversationId}/`);
  const stored = state.transcript ? await storedHistory(tollgate, state.transcript) : undefined;
  const finished = await new FullOutputs(tollgate, ownTurn).of(
    stored ?? state.history.slice(0, runningUser ? lastUser : undefined),
  );

  const messages: UIMessage[] = [];
  const turns = finishedTurns(finished);
  // Counted from the newest: a transcript may begin with history carried in from before the conversation counted.
  const lastFinished = state.turnCount - (running !== undefined ? 1 : 0);
  const turnIds = turns.map((_, index) => {
    const number = lastFinished - (turns.length - 1 - index);
    return number >= 1 ? `${conversationId}/turn-${number}` : undefined;
  });
  const audits = await Promise.all(
    turns.map((turn, index) => (asksForApproval(turn.messages) ? auditOf(tollgate, turnIds[index]) : [])),
  );
  for (const [index, turn] of turns.entries()) {
    const turnId = turnIds[index] ?? `${conversationId}/earlier-${index + 1}`;
    messages.push(userMessageOf(turnId, turn.user.content));
    const snapshot = { ...storedTurnSnapshot(turn.messages), audit: audits[index] ?? [] };
    const assistant = await turnMessageOf(turnId, snapshot);
    if (assistant) messages.push(assistant);
  }
  if (running !== undefined) {
    if (runningUser) messages.push(userMessageOf(running, runningUser.content));
    const assistant = await runningTurnMessage(tollgate, running);
    if (assistant) messages.push(assistant);
  }
  for (const queued of state.queued) messages.push(userMessageOf(queued.turnId, queued.content));

  const validated = await aiSdk().safeValidateUIMessages({ messages });
  if (!validated.success) {
    throw new GatewayError(
      'internal',
      `The history of "${conversationId}" did not make valid UI messages: ${validated.error.message}`,
    );
  }
  return validated.data as UIMessage[];
}

/**
 * The conversation's whole stored history, or undefined when the store does not have it (a gateway that does not
 * share the worker's store, or a store that was wiped): the chat then shows the recent history the conversation keeps
 * itself (its last 100 messages) rather than failing.
 */
async function storedHistory(
  tollgate: TollgateClient,
  transcript: TranscriptPointer,
): Promise<ModelMessage[] | undefined> {
  try {
    return await tollgate.readTranscript(transcript);
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    if (name === 'ContentNotFound' || name === 'NotATranscript') return undefined;
    throw error;
  }
}

/** The conversation's finished turns: each user message and the assistant and tool messages that answered it. */
function finishedTurns(messages: readonly ModelMessage[]): Array<{ user: UserMessage; messages: ModelMessage[] }> {
  const turns: Array<{ user: UserMessage; messages: ModelMessage[] }> = [];
  for (const message of messages) {
    if (message.role === 'user') turns.push({ user: message, messages: [] });
    else if (message.role !== 'system') turns.at(-1)?.messages.push(message);
  }
  return turns;
}

function asksForApproval(messages: readonly ModelMessage[]): boolean {
  return messages.some(
    (message) =>
      message.role === 'assistant' &&
      typeof message.content !== 'string' &&
      message.content.some((part) => part.type === 'tool-approval-request'),
  );
}

/**
 * A finished turn's decisions as its workflow recorded them (who, when, expired or denied, each approval's
 * descriptor): the transcript keeps only approved or not. Empty when the workflow is gone (past Temporal's
 * retention) or cannot be read: the history then shows what the transcript holds.
 */
async function auditOf(tollgate: TollgateClient, turnId: string | undefined): Promise<ToolApprovalAuditEntry[]> {
  if (turnId === undefined) return [];
  try {
    return (await new TurnReader(tollgate, turnId).read()).audit;
  } catch {
    return [];
  }
}

function userMessageOf(turnId: string, content: UserMessage['content']): UIMessage {
  return { id: `${turnId}/user`, role: 'user', parts: userMessageParts(content) };
}

/**
 * The running turn's message so far. A turn that does not answer in time (no worker yet after a deploy) is left out:
 * the resume route that follows brings it, or says why it cannot.
 */
async function runningTurnMessage(tollgate: TollgateClient, turnId: string): Promise<UIMessage | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), runningTurnWaitMs);
  });
  try {
    const snapshot = await Promise.race([new TurnReader(tollgate, turnId).read(), late]);
    if (!snapshot || snapshot.status === 'not-started') return undefined;
    return await turnMessageOf(turnId, snapshot);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
