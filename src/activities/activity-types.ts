import type {
  ModelMessage,
  ModelSettings,
  NotificationTarget,
  ProviderTool,
  ReasoningPart,
  ToolApprovalAuditEntry,
  TextPart,
  ToolApprovalRequestPart,
  ToolCallPart,
  ToolResultOutput,
  ToolResultPart,
} from '../protocol';
import type { ApprovalNotice, NotificationReceipt } from '../notifications/notification-types';
import type { ToolManifestEntry } from '../tools';
import type { TurnOutcome } from './await-turn-outcome';

/** Input of `callModel`. */
export interface CallModelInput {
  messages: ModelMessage[];
  tools: ToolManifestEntry[];
  settings?: ModelSettings;
  /** Which OpenAI API to call; default `chat`. */
  api?: 'chat' | 'responses';
  /** Provider-executed tools (Responses API only). */
  providerTools?: ProviderTool[];
}

/** A tool call whose arguments could not be read; it becomes an error result, not a failure. */
export interface InvalidToolCall {
  toolCallId: string;
  /** What was wrong, for the model. */
  error: string;
}

/**
 * One model step: what the model said and asked for. Through the Responses API the content also
 * holds provider-executed calls: one waiting for approval (`tool-call` then `tool-approval-request`)
 * or one the provider already ran (`tool-call` then `tool-result`).
 */
export interface ModelStepResult {
  content: Array<ReasoningPart | TextPart | ToolCallPart | ToolApprovalRequestPart | ToolResultPart>;
  invalidToolCalls: InvalidToolCall[];
  finishReason: string;
}

/** Input of `executeTool`. */
export interface ExecuteToolInput {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/**
 * Runs one tool call inside the activity that called it (it heartbeats that activity). Tool errors come back as
 * `error-text` outputs.
 */
export type ExecuteTool = (input: ExecuteToolInput) => Promise<ToolResultOutput>;

/** A call that asks for approval, as an in-process policy sees it. */
export interface ToolApprovalPolicyRequest {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  workflowId: string;
  requester?: string;
}

/** A policy's answer: decide now, or leave it to a person (`ask`). */
export type ToolApprovalPolicyAnswer =
  'approve' | 'deny' | 'ask' | { decision: 'approve' | 'deny' | 'ask'; reason?: string };

/** A worker's `onToolApproval` rule, run in the model step before anyone is asked. */
export type ToolApprovalPolicy = (
  request: ToolApprovalPolicyRequest,
) => ToolApprovalPolicyAnswer | Promise<ToolApprovalPolicyAnswer>;

/** Input of `validateToolOutput`: what a client submitted for a client-executed tool. */
export interface ValidateToolOutputInput {
  toolName: string;
  output?: unknown;
  error?: string;
}

/** Input of `validateToolInput`: the input an editor wants an approved call to run with. */
export interface ValidateToolInputInput {
  toolName: string;
  input: unknown;
}

/** Input of `notifyApproval`: one notice to one target. */
export interface NotifyApprovalInput {
  event: 'requested' | 'reminder' | 'expiry-warning' | 'resolved';
  notice: ApprovalNotice;
  target: NotificationTarget;
  /** For `resolved`: what the request left behind (the Slack message to update). */
  receipt?: NotificationReceipt;
  /** For `resolved`: the outcome. */
  decision?: ToolApprovalAuditEntry;
}

/** The activities the `agentTurn` workflow calls besides its turn activities (./turn-activity-types). */
export interface TollgateActivities {
  /** Tells people about an approval: asks, reminds, or shows the outcome. Returns what to update later. */
  notifyApproval(input: NotifyApprovalInput): Promise<NotificationReceipt | null>;
  /** Checks a client's output against the tool's output schema and turns it into a result output. */
  validateToolOutput(
    input: ValidateToolOutputInput,
  ): Promise<{ valid: true; output: ToolResultOutput } | { valid: false; error: string }>;
  /** Checks an editor's input for a worker tool against the tool's input schema (turn revision 7). */
  validateToolInput(input: ValidateToolInputInput): Promise<{ valid: true } | { valid: false; error: string }>;
  /** Waits for a turn's outcome: for a conversation that continued as new while the turn waited. */
  awaitTurnOutcome(input: { turnId: string }): Promise<TurnOutcome>;
}
