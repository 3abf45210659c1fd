import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AgentTurnState,
  AgentTurnStatePage,
  ConversationState,
  SendMessageInput,
  SendMessageResult,
  PendingToolApproval,
  RecordedDecision,
  RespondToToolApprovalsInput,
  SubmitToolOutputInput,
  ToolApprovalDecision,
  ToolResultPart,
  TurnEvent,
} from '../protocol';

// The public contract: bots in any language use these names, so they never change.

/** Workflow type of one agent turn. */
export const agentTurnWorkflowType = 'agentTurn';

/** Fire-and-forget decision on one approval. Conflicting or unknown decisions are recorded as ignored. */
export const toolApprovalResponseSignal = defineSignal<[ToolApprovalDecision]>('toolApprovalResponse');

/** Validated decisions on one or more approvals; returns the recorded decisions. */
export const respondToToolApprovalsUpdate = defineUpdate<RecordedDecision[], [RespondToToolApprovalsInput]>(
  'respondToToolApprovals',
);

/** Approvals the turn is waiting for. */
export const pendingToolApprovalsQuery = defineQuery<PendingToolApproval[]>('pendingToolApprovals');

/**
 * The state of a turn: status, messages so far, pending approvals, audit. A page argument
 * (`{ fromMessage, maxMessages }`) returns part of the messages; `messageCount` says how many there are.
 */
export const agentTurnStateQuery = defineQuery<AgentTurnState, [AgentTurnStatePage?]>('agentTurnState');

/** The output of a client-executed tool call; returns the recorded `tool-result` part. */
export const submitToolOutputUpdate = defineUpdate<ToolResultPart, [SubmitToolOutputInput]>('submitToolOutput');

/** What happened in the turn so far: started, approval requested, decided, tool finished, completed. */
export const agentTurnEventsQuery = defineQuery<TurnEvent[]>('agentTurnEvents');

/** Ids of the approvals a turn waits for, so that the Temporal UI and `temporal workflow list` can find them. */
export const pendingApprovalsSearchAttribute = defineSearchAttributeKey(
  'TollgatePendingApprovals',
  SearchAttributeType.KEYWORD_LIST,
);

/** Tools a turn waits to run until someone decides (from turn revision 9): `TollgateWaitingTools = 'bash'`. */
export const waitingToolsSearchAttribute = defineSearchAttributeKey(
  'TollgateWaitingTools',
  SearchAttributeType.KEYWORD_LIST,
);

/**
 * Who may decide what a turn waits for (from turn revision 9): the approvers named, `*` where anyone may, the
 * requester left out where they may not approve their own call. `TollgateApprovers IN ('ana', '*')`.
 */
export const approversSearchAttribute = defineSearchAttributeKey('TollgateApprovers', SearchAttributeType.KEYWORD_LIST);

/** Who started the turn, set once it asks for approval (from turn revision 9): `TollgateRequester = 'ana'`. */
export const requesterSearchAttribute = defineSearchAttributeKey('TollgateRequester', SearchAttributeType.KEYWORD);

/** Error types a rejected update carries; clients map them to 400, 404 and 409. */
export const decisionErrorTypes = {
  invalid: 'InvalidToolApprovalResponse',
  'unknown-approval': 'UnknownApproval',
  conflict: 'ConflictingDecision',
  expired: 'ApprovalExpired',
  forbidden: 'ApproverNotAllowed',
  replayed: 'ReplayedDecision',
} as const;

/** Error types of a rejected `submitToolOutput`. */
export const toolOutputErrorTypes = {
  invalid: 'InvalidToolOutput',
  unknown: 'UnknownToolCall',
  conflict: 'ConflictingToolOutput',
} as const;

/** Workflow type of a conversation: one per conversation id, running each message as an agentTurn child. */
export const conversationWorkflowType = 'conversation';

/** Sends a user message to a conversation; returns the id of the turn that answers it. */
export const sendMessageUpdate = defineUpdate<SendMessageResult, [SendMessageInput]>('sendMessage');

/** A conversation's history, running turn, pending approvals and queue. */
export const conversationStateQuery = defineQuery<ConversationState>('conversationState');

/**
 * Ends a turn early because a newer message replaces it: everything it waits for is denied with
 * `reason`, and it asks nobody again. It can only deny, so it needs no approver's rights.
 */
export const supersedeTurnSignal = defineSignal<[{ reason: string }]>('supersedeTurn');

/** Sent by a turn to its conversation whenever what it waits for changes. */
export const turnPendingApprovalsSignal =
  defineSignal<[{ turnId: string; pending: PendingToolApproval[] }]>('turnPendingApprovals');

/**
 * A `respondToToolApprovals` update a turn took for approvals one of its sub-agents waits for (turn revision 17),
 * passed on to that sub-agent: `responses` as the update carried them, `requestId` to answer with, and `replyTo`, the
 * turn that waits for the answer (one of the sub-agent's own ancestors). Sent by a turn; not part of the public
 * contract.
 */
export interface SubAgentDecisionsRequest {
  requestId: string;
  replyTo: string;
  responses: unknown;
}

/** A sub-agent's answer to a {@link SubAgentDecisionsRequest}: what it recorded, or why it refused. */
export type SubAgentDecisionsAnswer =
  | { requestId: string; recorded: RecordedDecision[] }
  | { requestId: string; refused: { message: string; type: string } };

/** Sent by a turn to the sub-agent that waits for the approvals of an update it took (turn revision 17). */
export const subAgentDecisionsSignal = defineSignal<[SubAgentDecisionsRequest]>('subAgentDecisions');

/** Sent back by the sub-agent: the update's answer, as the sub-agent would have given it (turn revision 17). */
export const subAgentDecisionsAnswerSignal = defineSignal<[SubAgentDecisionsAnswer]>('subAgentDecisionsAnswer');
