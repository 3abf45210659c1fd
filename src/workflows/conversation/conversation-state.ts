import { ApplicationFailure, ChildWorkflowFailure } from '@temporalio/common';
import type { TurnOutcome } from '../../activities/await-turn-outcome';
import type {
  AgentTurnInput,
  AgentTurnResult,
  ConversationInput,
  ConversationState as ConversationStateView,
  ModelMessage,
  SendMessageInput,
  TranscriptPointer,
} from '../../protocol';
import { messageOfThrown } from '../guards/text-of-value';
import { ConversationPendingView } from './conversation-pending-view';

/**
 * The conversation's revisions: each a `patched()` id, recorded in a conversation's history by the first run that
 * took the new code, so conversations started before it keep their old commands on replay.
 */
export const conversationPatches = {
  /**
   * turns are started with parent close policy ABANDON, and the conversation continues as new while a turn waits
   *
   * When the conversation's history grows large (a flood of signals) it carries the running turn along
   * (`runningTurn`) and learns the turn's outcome from Temporal afterwards (`awaitTurnOutcome`), instead of failing
   * at the server's history limits (docs/untrusted-input-and-floods.md). @since 2026-11-25
   */
  continuesDuringTurns: 'conversation-continues-during-turns',
} as const;

/** The reason pending calls are denied with when a new message supersedes them. */
export const supersededReason = 'superseded by a new message';

/** Messages the state query shows; the whole conversation is in the content store. */
export const recentMessagesKept = 100;

/** A message waiting for its turn, with the id its turn will have. */
export type QueuedMessage = SendMessageInput & { turnId: string };

/** A turn the conversation runs: its id, the transcript it was given and the user's message. */
export interface RunningTurn {
  turnId: string;
  before: TranscriptPointer;
  userMessage: ModelMessage;
  /** Set for a turn an earlier run started and carried over when it continued as new. */
  carried?: true;
  /** Who sent the message (a turn this run starts). */
  requester?: SendMessageInput['requester'];
}

/**
 * What one conversation holds — its transcript, recent messages, queue, turn count, running turn, last failure and
 * what it shows of the running turn's approvals — and the rules that read and change it. Pure: `conversation`
 * wires it to Temporal (handlers, child turns, continue-as-new), and test/workflows/conversation/
 * conversation-state.unit.test.ts tests it without Temporal.
 */
export class ConversationState {
  transcript: TranscriptPointer;
  readonly recent: ModelMessage[];
  turnCount: number;
  readonly queued: QueuedMessage[] = [];
  currentTurnId: string | undefined;
  lastFailure: { turnId: string; message: string } | undefined;
  readonly pendingView = new ConversationPendingView();
  /** Turns this run started (not carried over); their senders' updates wait for them. */
  private readonly startedTurns = new Set<string>();
  private turnsThisRun = 0;
  /** The turn an earlier run was waiting for when it continued as new, until the loop takes it up. */
  private carriedTurn: ConversationInput['runningTurn'];

  /**
   * `continuesDuringTurns`: whether this conversation has {@link conversationPatches.continuesDuringTurns};
   * `continuedAsNew`: whether the server started this run by continue-as-new (only such a run takes up a turn).
   */
  constructor(
    readonly conversationId: string,
    readonly input: ConversationInput,
    { continuesDuringTurns, continuedAsNew }: { continuesDuringTurns: boolean; continuedAsNew: boolean },
  ) {
    this.carriedTurn = continuesDuringTurns && continuedAsNew ? this.ownTurn(input.runningTurn) : undefined;
    this.transcript = input.transcript ?? { tail: [] };
    this.recent = [...(input.recent ?? [])];
    this.turnCount = input.turnCount ?? 0;
    for (const message of input.queued ?? []) this.queued.push({ ...message, turnId: this.nextTurnId() });
  }

  /** Turn numbers are given out in order: the running turn is number `turnCount`, the queue follows it. */
  nextTurnId(): string {
    return `${this.conversationId}/turn-${this.turnCount + this.queued.length + 1}`;
  }

  /** Queues a sent message; `queued` says whether it waits behind another turn rather than starting now. */
  receive(message: SendMessageInput): { turnId: string; queued: boolean } {
    const turnId = this.nextTurnId();
    const queued = this.queued.length > 0 || this.currentTurnId !== undefined;
    this.queued.push({ ...message, turnId });
    return { turnId, queued };
  }

  /** The running turn a new message supersedes: one that waits for approvals, when the conversation says so. */
  turnToSupersede(): string | undefined {
    if (this.input.onMessageWhilePending !== 'supersede') return undefined;
    return this.currentTurnId && this.pendingView.pending().length > 0 ? this.currentTurnId : undefined;
  }

  /** Whether a message's turn has started, or failed to: its sender's update returns then. */
  hasStarted(turnId: string): boolean {
    return this.startedTurns.has(turnId) || this.lastFailure?.turnId === turnId;
  }

  /** What the state query shows. */
  view(): ConversationStateView {
    return {
      conversationId: this.conversationId,
      history: this.recent,
      transcript: this.transcript,
      ...(this.currentTurnId !== undefined && { currentTurnId: this.currentTurnId }),
      pending: this.pendingView.pending(),
      queued: this.queued,
      turnCount: this.turnCount,
      ...(this.lastFailure && { lastFailure: this.lastFailure }),
      ...(this.pendingView.refusedCount() > 0 && { refusedSignals: this.pendingView.refusedCount() }),
    };
  }

  /** Takes up the turn an earlier run carried over, once; it is the running turn from now. */
  takeCarriedTurn(): RunningTurn | undefined {
    const carried = this.carriedTurn;
    if (!carried) return undefined;
    this.carriedTurn = undefined;
    const { turnId, before, userMessage, shown } = carried;
    this.currentTurnId = turnId;
    this.pendingView.resumeTurn(turnId, shown);
    return { turnId, before, userMessage, carried: true };
  }

  /** Starts the next queued message's turn: it is the running turn from now. Call only with a message queued. */
  startNext(): RunningTurn {
    const message = this.queued.shift() as QueuedMessage;
    const userMessage: ModelMessage = { role: 'user', content: message.content };
    this.remember([userMessage]);
    this.turnCount += 1;
    this.turnsThisRun += 1;
    this.currentTurnId = message.turnId;
    this.pendingView.startTurn(message.turnId);
    return {
      turnId: message.turnId,
      before: this.transcript,
      userMessage,
      ...(message.requester !== undefined && { requester: message.requester }),
    };
  }

  /**
   * The input of a turn this run starts: a reference to the transcript and the new message, never the whole (only a
   * small tail kept inline). A chat follows a conversation's turns, so they stream the model's answer unless the
   * conversation's turn settings say `stream: false`.
   */
  turnInput({ before, userMessage, requester }: RunningTurn): AgentTurnInput {
    return {
      stream: true,
      ...this.input.turn,
      ...(before.head !== undefined && { transcript: before.head }),
      messages: [...before.tail, userMessage],
      ...(requester !== undefined && { requester }),
    };
  }

  /** Records that a turn's child workflow started. */
  started(turnId: string): void {
    this.startedTurns.add(turnId);
  }

  /** Records a turn's answer. */
  answered({ before, userMessage }: RunningTurn, result: AgentTurnResult): void {
    this.remember(result.messages);
    this.transcript = result.transcript ?? { ...before, tail: [...before.tail, userMessage, ...result.messages] };
  }

  /** Records a turn that failed; a failed turn keeps what it did, so tools that already ran stay in the history. */
  failed({ turnId, before, userMessage }: RunningTurn, error: unknown): void {
    this.lastFailure = { turnId, message: failureMessage(error) };
    const kept = keptByFailedTurn(error);
    this.remember(kept?.messages ?? []);
    this.transcript = kept?.transcript ?? {
      ...before,
      tail: [...before.tail, userMessage, ...(kept?.messages ?? [])],
    };
  }

  /** The running turn is over, answered or not. */
  endTurn(): void {
    this.currentTurnId = undefined;
    this.pendingView.endTurn();
  }

  /** Whether to continue as new between turns: Temporal suggests it, or this run ran `continueAsNewAfterTurns`. */
  shouldContinueAsNew(suggested: boolean): boolean {
    const limit = this.input.continueAsNewAfterTurns;
    return suggested || (limit !== undefined && this.turnsThisRun >= limit);
  }

  /** The next run's input: settings, transcript, recent messages, the queue, and the running turn if any. */
  continueAsNewInput(running?: RunningTurn): ConversationInput {
    const { input } = this;
    return {
      ...(input.turn && { turn: input.turn }),
      ...(input.onMessageWhilePending && { onMessageWhilePending: input.onMessageWhilePending }),
      ...(input.continueAsNewAfterTurns !== undefined && { continueAsNewAfterTurns: input.continueAsNewAfterTurns }),
      transcript: this.transcript,
      recent: this.recent,
      queued: this.queued.map(({ turnId: _turnId, ...message }) => message),
      turnCount: this.turnCount,
      ...(running && {
        runningTurn: {
          turnId: running.turnId,
          before: running.before,
          userMessage: running.userMessage,
          shown: this.pendingView.snapshot(),
        },
      }),
    };
  }

  private remember(messages: readonly ModelMessage[]): void {
    this.recent.push(...messages);
    this.recent.splice(0, Math.max(0, this.recent.length - recentMessagesKept));
  }

  /** A carried-over turn only if it is one of this conversation's own: a caller's input never points elsewhere. */
  private ownTurn(running: ConversationInput['runningTurn']): ConversationInput['runningTurn'] {
    if (!running) return undefined;
    const prefix = `${this.conversationId}/turn-`;
    const number = running.turnId.slice(prefix.length);
    return running.turnId.startsWith(prefix) && /^[1-9][0-9]*$/.test(number) ? running : undefined;
  }
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
