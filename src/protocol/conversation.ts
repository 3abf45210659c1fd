import { z } from 'zod';
import { agentTurnInputSchema } from './agent-turn';
import { modelMessageSchema, userContentPartSchema, type ModelMessage } from './model-message';
import type { PendingToolApproval } from './tool-approval';
import type { TranscriptPointer } from './turn-plan';

/** Turn settings a conversation passes to each of its turns. */
export const conversationTurnSettingsSchema = agentTurnInputSchema.omit({ messages: true, approvalWait: true });

/** A user message sent to a conversation. */
export const sendMessageInputSchema = z.strictObject({
  /** What the person wrote: text, or parts (text, images, files) as the AI SDK writes them. */
  content: z.union([z.string().min(1).max(100_000), z.array(userContentPartSchema).min(1).max(100)]),
  /** Who wrote it. */
  requester: z.string().min(1).max(200).optional(),
});
export type SendMessageInput = z.infer<typeof sendMessageInputSchema>;

/** The input of the `conversation` workflow; the history and queue carry over when it continues as new. */
export const conversationInputSchema = z.strictObject({
  /** Settings for every turn. */
  turn: conversationTurnSettingsSchema.optional(),
  /**
   * A message that arrives while approvals are pending: `wait` (default) queues it until the turn
   * has its decisions and finishes; `supersede` denies the pending calls with the reason
   * "superseded by a new message", so the turn ends and the new message is answered next.
   */
  onMessageWhilePending: z.enum(['wait', 'supersede']).optional(),
  /** Continue as new after this many turns in one run (Temporal's own suggestion also counts). */
  continueAsNewAfterTurns: z.number().int().min(1).optional(),
  /** Carried over by continue-as-new: the conversation in Tollgate's content store. */
  transcript: z.strictObject({ head: z.string().optional(), tail: z.array(modelMessageSchema) }).optional(),
  /** Carried over by continue-as-new: the most recent messages, for the state query. */
  recent: z.array(modelMessageSchema).optional(),
  /** Carried over by continue-as-new: messages not yet answered. */
  queued: z.array(sendMessageInputSchema).optional(),
  /** Carried over by continue-as-new: turns run so far. */
  turnCount: z.number().int().min(0).optional(),
  /**
   * Carried over by continue-as-new while a turn waited: the turn, the transcript it was given and the user's
   * message, and what the conversation showed of its approvals. Taken up only by a run that continued as new.
   */
  runningTurn: z
    .strictObject({
      turnId: z.string().min(1),
      before: z.strictObject({ head: z.string().optional(), tail: z.array(modelMessageSchema) }),
      userMessage: modelMessageSchema,
      shown: z.unknown().optional(),
    })
    .optional(),
});
export type ConversationInput = z.infer<typeof conversationInputSchema>;

/** What `sendMessage` returns: the turn that answers the message, and whether it waits in the queue. */
export interface SendMessageResult {
  /** `<conversationId>/turn-<n>`. */
  turnId: string;
  /** True when the message waits for an earlier turn to finish. */
  queued: boolean;
}

/** A conversation as the `conversationState` query shows it. */
export interface ConversationState {
  conversationId: string;
  /** The most recent messages (up to 100), user, assistant and tool; large outputs are previews. */
  history: ModelMessage[];
  /** The whole conversation in Tollgate's content store (`TollgateClient.readTranscript`). */
  transcript?: TranscriptPointer;
  /** The turn running now. */
  currentTurnId?: string;
  /** Approvals the running turn waits for. */
  pending: PendingToolApproval[];
  /** Messages waiting for their turn. */
  queued: Array<SendMessageInput & { turnId: string }>;
  /** Turns run so far, across continue-as-new. */
  turnCount: number;
  /** The last turn that failed, and why; the conversation goes on. */
  lastFailure?: { turnId: string; message: string };
  /** `turnPendingApprovals` signals refused in this run: not from the running turn, malformed, or rewriting what was shown. */
  refusedSignals?: number;
}
