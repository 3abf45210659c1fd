import type { ModelMessage, ModelSettings, TextPart, ToolCallPart, ToolResultOutput } from '../protocol';
import type { ToolManifestEntry } from '../tools';

/** Input of `callModel`. */
export interface CallModelInput {
  messages: ModelMessage[];
  tools: ToolManifestEntry[];
  settings?: ModelSettings;
}

/** A tool call whose arguments could not be read; it becomes an error result, not a failure. */
export interface InvalidToolCall {
  toolCallId: string;
  /** What was wrong, for the model. */
  error: string;
}

/** One model step: what the model said and asked for. */
export interface ModelStepResult {
  content: Array<TextPart | ToolCallPart>;
  invalidToolCalls: InvalidToolCall[];
  finishReason: string;
}

/** Input of `inspectToolCalls`. */
export interface InspectToolCallsInput {
  calls: ToolCallPart[];
  /** The messages the model saw, for `needsApproval` functions. */
  messages: ModelMessage[];
  /** The tools this turn offered. */
  tools: string[];
}

/** Whether a call may go on, and for tools with a per-call rule whether it needs approval. */
export type ToolCallInspection =
  | { toolCallId: string; status: 'invalid'; error: string }
  | { toolCallId: string; status: 'valid'; needsApproval?: boolean };

/** Input of `executeTool`. */
export interface ExecuteToolInput {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The activities the `agentTurn` workflow calls. */
export interface TollgateActivities {
  /** The manifest of the turn's tools; an unknown name fails the turn with a clear error. */
  describeTools(names?: string[]): Promise<ToolManifestEntry[]>;
  /** One model call. */
  callModel(input: CallModelInput): Promise<ModelStepResult>;
  /** Validates calls against the tools' schemas and runs per-call approval rules. */
  inspectToolCalls(input: InspectToolCallsInput): Promise<ToolCallInspection[]>;
  /** Runs one tool call. Tool errors come back as `error-text` outputs. */
  executeTool(input: ExecuteToolInput): Promise<ToolResultOutput>;
}
