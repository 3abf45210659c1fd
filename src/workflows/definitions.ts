import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AgentTurnState,
  PendingToolApproval,
  RespondToToolApprovalsInput,
  ToolApprovalAuditEntry,
  ToolApprovalDecision,
} from '../protocol';

// The public contract: bots in any language use these names, so they never change.

/** Workflow type of one agent turn. */
export const agentTurnWorkflowType = 'agentTurn';

/** Fire-and-forget decision on one approval. Conflicting or unknown decisions are recorded as ignored. */
export const toolApprovalResponseSignal = defineSignal<[ToolApprovalDecision]>('toolApprovalResponse');

/** Validated decisions on one or more approvals; returns the recorded decisions. */
export const respondToToolApprovalsUpdate = defineUpdate<ToolApprovalAuditEntry[], [RespondToToolApprovalsInput]>(
  'respondToToolApprovals',
);

/** Approvals the turn is waiting for. */
export const pendingToolApprovalsQuery = defineQuery<PendingToolApproval[]>('pendingToolApprovals');

/** The whole state of a turn: status, messages so far, pending approvals, audit. */
export const agentTurnStateQuery = defineQuery<AgentTurnState>('agentTurnState');

/** Ids of the approvals a turn waits for, so that the Temporal UI and `temporal workflow list` can find them. */
export const pendingApprovalsSearchAttribute = defineSearchAttributeKey(
  'TollgatePendingApprovals',
  SearchAttributeType.KEYWORD_LIST,
);

/** Error types a rejected update carries; clients map them to 400, 404 and 409. */
export const decisionErrorTypes = {
  invalid: 'InvalidToolApprovalResponse',
  'unknown-approval': 'UnknownApproval',
  conflict: 'ConflictingDecision',
  expired: 'ApprovalExpired',
} as const;
