import { z } from 'zod';
import { approvalRulesSchema, durationToMilliseconds, type ApprovalRules, type Duration } from '../protocol';
import { resolveApprovalRequirement, type ApprovalMode, type NeedsApproval } from './resolve-approval-requirement';

/** What a tool's `execute` gets besides its input. */
export interface ToolExecutionContext {
  /** The id of the call being run. */
  toolCallId: string;
  /** Aborted when the activity is cancelled or times out. */
  abortSignal: AbortSignal;
  /** Tells Temporal a long tool is still alive. */
  heartbeat: (details?: unknown) => void;
}

/** What a tool author writes. */
export interface ToolDefinition<Schema extends z.ZodType> {
  /** The name the model calls; letters, digits, `_` and `-`, at most 64. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** Validates the model's arguments; also rendered as the JSON Schema the model sees. */
  inputSchema: Schema;
  /** The JSON Schema the model sees, when it is given rather than rendered from `inputSchema` (MCP tools bring theirs). */
  inputJsonSchema?: Record<string, unknown>;
  /**
   * What `execute` returns: a `value` (default; a string becomes `text`, anything else `json`), or a `tool-result`
   * output as the model will read it (`content` parts, `error-text`), used as given once it checks out.
   */
  outputFormat?: 'value' | 'tool-result';
  /** Whether a person must approve a call: a flag, or a function of the call (it runs in an activity). */
  needsApproval?: NeedsApproval<z.infer<Schema>>;
  /** Microsoft Agent Framework's spelling of `needsApproval`; default `never_require`. */
  approvalMode?: ApprovalMode;
  /** How long an approval of this tool may wait; overrides the turn's `approvalTimeout`. */
  approvalTimeout?: Duration;
  /** What expiry does for this tool: `deny` the call or `fail` the turn; overrides the turn's `onExpire`. */
  onExpire?: 'deny' | 'fail';
  /**
   * Runs the call. A string becomes a `text` output, anything else `json`; a throw becomes `error-text`.
   * Leave it out (or set `executor: 'client'`) for a tool that a browser or another service runs:
   * the turn then waits for its output through the `submitToolOutput` update.
   */
  execute?: (input: z.infer<Schema>, context: ToolExecutionContext) => unknown;
  /** Who runs the tool; `client` when there is no `execute`. */
  executor?: 'worker' | 'client';
  /**
   * Safe to run again after an interruption (the worker died mid-call, the call timed out). When
   * false (the default), an interrupted call is not repeated: it comes back as an error the model
   * reads, since it may or may not have taken effect.
   */
  idempotent?: boolean;
  /** Checks what a client submits for a client-executed tool. */
  outputSchema?: z.ZodType;
  /** Who may approve calls of this tool (and how many), and who is told; wins over the turn's rules. */
  approvalRules?: ApprovalRules;
}

/** A tool as the worker registers it, with its approval rule resolved. */
export interface Tool {
  name: string;
  description: string;
  inputSchema: z.ZodType;
  /** The JSON Schema the model sees, when given rather than rendered from `inputSchema`. */
  inputJsonSchema?: Record<string, unknown>;
  /** What `execute` returns: a plain value (absent), or a tool-result output used as given. */
  outputFormat?: 'tool-result';
  /** Normalised from `needsApproval` / `approvalMode`. */
  needsApproval: NeedsApproval<unknown>;
  /** Absent for client-executed tools. */
  execute?: (input: unknown, context: ToolExecutionContext) => unknown;
  executor: 'worker' | 'client';
  idempotent: boolean;
  outputSchema?: z.ZodType;
  approvalTimeoutMs?: number;
  onExpire?: 'deny' | 'fail';
  approvalRules?: ApprovalRules;
  /** Set by `defineAgentTool`: a call runs this sub-agent as a child turn. */
  agent?: {
    instructions: string;
    tools: Tool[];
    /** MCP servers whose tools the sub-agent may call too (`<server>__<tool>` in the worker's registry). */
    mcpServers?: string[];
    model?: { model?: string; temperature?: number; maxOutputTokens?: number };
    maxSteps?: number;
  };
}

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Defines a tool the agent may call.
 *
 * @example
 * const deploy = defineTool({
 *   name: 'deploy',
 *   description: 'Deploy a service',
 *   inputSchema: z.object({ service: z.string() }),
 *   needsApproval: true,
 *   execute: async ({ service }) => `deployed ${service}`,
 * });
 */
export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): Tool {
  if (!toolNamePattern.test(definition.name)) {
    throw new TypeError(
      `Tool name "${definition.name}" is invalid: use 1 to 64 letters, digits, "_" or "-" (the model calls it by name).`,
    );
  }
  if (!(definition.inputSchema instanceof z.ZodType)) {
    throw new TypeError(`Tool "${definition.name}" needs a zod inputSchema.`);
  }
  const executor = definition.executor ?? (definition.execute ? 'worker' : 'client');
  if (executor === 'worker' && !definition.execute) {
    throw new TypeError(`Tool "${definition.name}" runs on the worker but has no execute function.`);
  }
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    ...(definition.inputJsonSchema && { inputJsonSchema: definition.inputJsonSchema }),
    ...(definition.outputFormat === 'tool-result' && { outputFormat: 'tool-result' as const }),
    needsApproval: resolveApprovalRequirement(definition) as NeedsApproval<unknown>,
    executor,
    idempotent: definition.idempotent ?? false,
    ...(executor === 'worker' && { execute: definition.execute as Tool['execute'] }),
    ...(definition.outputSchema && { outputSchema: definition.outputSchema }),
    ...(definition.approvalTimeout !== undefined && {
      approvalTimeoutMs: durationToMilliseconds(definition.approvalTimeout),
    }),
    ...(definition.onExpire && { onExpire: definition.onExpire }),
    ...(definition.approvalRules && { approvalRules: approvalRulesSchema.parse(definition.approvalRules) }),
  };
}
