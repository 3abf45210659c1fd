import { z } from 'zod';
import { approvalRulesSchema } from './approval-rules';
import { durationSchema } from './duration';
import { modelMessageSchema, type ModelMessage } from './model-message';
import type { IgnoredToolApprovalDecision, PendingToolApproval, ToolApprovalAuditEntry } from './tool-approval';
import type { TranscriptPointer } from './turn-plan';

/** Settings passed to the model on every step. */
export const modelSettingsSchema = z.strictObject({
  /** Model name; defaults to `TOLLGATE_MODEL` on the worker. */
  model: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
});
export type ModelSettings = z.infer<typeof modelSettingsSchema>;

/** A tool the model provider runs itself: a remote MCP server the OpenAI Responses API calls. */
export const providerToolSchema = z.strictObject({
  type: z.literal('mcp'),
  /** The label the provider's `mcp_…` items carry; its calls are named `mcp.<tool>`. */
  serverLabel: z.string().min(1),
  /** Where the provider reaches the MCP server. */
  serverUrl: z.string().url(),
  /** `always`: the provider asks, and the turn waits for a decision, before every call. */
  requireApproval: z.enum(['always', 'never']),
  /** The server's tools the model may use; all when absent. */
  allowedTools: z.array(z.string().min(1)).optional(),
});
export type ProviderTool = z.infer<typeof providerToolSchema>;

/** The input of the `agentTurn` workflow. */
export const agentTurnInputSchema = z.strictObject({
  /** The conversation so far, ending with the user's message (after `transcript`, when that is given). */
  messages: z.array(modelMessageSchema).min(1),
  /** Earlier messages kept in Tollgate's content store (a conversation passes its history this way). */
  transcript: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, 'a content reference (sha256:<64 hex>)')
    .optional(),
  /** Names of the worker's tools the model may call; all of them when absent. */
  tools: z.array(z.string().min(1)).optional(),
  /**
   * Autonomous ("heartbeat") mode: run every call without asking; the audit records it. Honoured only
   * where the worker's operator allows it (`allowAutoApprove`); the turn fails clearly otherwise.
   */
  autoApprove: z.boolean().optional(),
  /** Most model calls in the turn (default 10). */
  maxSteps: z.number().int().min(1).max(1000).optional(),
  /** How long an approval may wait before it is denied as expired; no limit when absent. */
  approvalTimeout: durationSchema.optional(),
  /** Model name and sampling settings. */
  model: modelSettingsSchema.optional(),
  /** Who started the turn, for the audit. */
  requester: z.string().min(1).optional(),
  /**
   * `durable` (default): wait in the workflow for decisions. `halt`: end the turn with status
   * `awaiting-approval`, as the AI SDK's generateText does; a later turn whose messages end with a
   * tool message of `tool-approval-response` parts continues it.
   */
  approvalWait: z.enum(['durable', 'halt']).optional(),
  /** `per-call` (default): ask only for calls that need it. `all-if-any`: if any call of a step asks, all do. */
  approvalBatch: z.enum(['per-call', 'all-if-any']).optional(),
  /**
   * Limits for each tool run: `heartbeat` is how soon a dead worker is noticed (default 30s),
   * `startToClose` how long one attempt may take (default 10m).
   */
  toolTimeouts: z
    .strictObject({ heartbeat: durationSchema.optional(), startToClose: durationSchema.optional() })
    .optional(),
  /** Who may decide this turn's approvals: it can only make the operator's rules stricter. */
  approvalRules: approvalRulesSchema.optional(),
  /** `chat` (default): Chat Completions. `responses`: the Responses API, needed for `providerTools`. */
  modelApi: z.enum(['chat', 'responses']).optional(),
  /** Provider-executed tools (MCP servers); their approval requests wait like any other. */
  providerTools: z.array(providerToolSchema).optional(),
  /** What an expired approval does: `deny` the call (default) or `fail` the turn. A tool's own setting wins. */
  onExpire: z.enum(['deny', 'fail']).optional(),
  /**
   * How the turn's model steps run. `activity` (default): each step is an activity of its own, which
   * heartbeats the text as it streams when the turn sets `stream` (a chat shows it live; the Temporal UI shows the
   * step pending either way).
   * `local`: a local activity, run inside the workflow task that asks for it: no task dispatch and 5 fewer
   * history events per step, for turns nobody watches live (bots, batch jobs) with models that answer in
   * seconds. No live text; a step longer than about 8 s keeps the workflow task open (the SDK extends it,
   * 3 events each time) and decisions and queries are answered when it ends or is extended.
   */
  modelSteps: z.enum(['activity', 'local']).optional(),
  /**
   * Someone follows the turn live (a chat: a conversation's turns set it): each model step streams the model's answer
   * and heartbeats its text as it arrives, so the chat shows it while the step runs. Without it (turns from revision
   * 13) a model step asks the model for the whole answer at once, which costs the worker less; the turn's result is
   * the same either way.
   */
  stream: z.boolean().optional(),
  /**
   * Bounds on sub-agents (agent tools, docs/sub-agents.md) across the tree this turn heads: how deep agents may call
   * agents (default 3) and how many model calls the whole tree may make (default 100). A child inherits them.
   */
  subAgentLimits: z
    .strictObject({
      maxDepth: z.number().int().min(0).max(16).optional(),
      maxTotalSteps: z.number().int().min(1).max(10_000).optional(),
    })
    .optional(),
  /**
   * Set by Tollgate on a sub-agent's turn: the agent names from the top turn down to this one, and how many model
   * calls the tree still allows it. Not for callers.
   */
  subAgent: z
    .strictObject({
      path: z.array(z.string().min(1).max(64)).min(1).max(16),
      stepBudget: z.number().int().min(1).max(10_000),
    })
    .optional(),
});
export type AgentTurnInput = z.infer<typeof agentTurnInputSchema>;

/** Where a turn is. */
export type AgentTurnStatus =
  'running' | 'awaiting-approval' | 'awaiting-tool-output' | 'completed' | 'max-steps-reached' | 'superseded';

/** What a finished turn returns. */
export interface AgentTurnResult {
  /**
   * `completed` when the model answered without tool calls; `max-steps-reached` when it was cut off;
   * `awaiting-approval` when a `halt` turn stopped at calls that need a decision (see `pending`);
   * `superseded` when a newer message replaced it and what it waited for was denied.
   */
  status: Extract<AgentTurnStatus, 'completed' | 'max-steps-reached' | 'awaiting-approval' | 'superseded'>;
  /** The messages the turn added (assistant and tool messages), to append to the conversation. */
  messages: ModelMessage[];
  /** The model's final text. */
  text: string;
  /** Model calls made. */
  steps: number;
  /** Model calls made by this turn and every sub-agent under it, when it ran sub-agents. */
  treeSteps?: number;
  /** Every approval of the turn: what was asked and what was decided. */
  audit: ToolApprovalAuditEntry[];
  /** Decisions that arrived by signal and were not applied (conflicting, unknown, late). */
  ignoredDecisions: IgnoredToolApprovalDecision[];
  /** Ignored decisions beyond the most recent 50, counted but not kept (so a flood of junk cannot grow a turn). */
  ignoredDecisionsNotKept?: number;
  /** Approvals still waiting: in a `halt` turn, what the next turn's messages should answer. */
  pending: PendingToolApproval[];
  /**
   * Where the whole conversation now is in Tollgate's content store: the stored head and the
   * messages after it. A conversation passes it to its next turn instead of the history.
   */
  transcript?: TranscriptPointer;
}

/** Which of a turn's messages the `agentTurnState` query returns: all when absent. */
export interface AgentTurnStatePage {
  /** Index of the first message to return (0-based). */
  fromMessage?: number;
  /** Most messages to return. */
  maxMessages?: number;
}

/** A running turn as the `agentTurnState` query shows it. */
export interface AgentTurnState extends Omit<AgentTurnResult, 'status'> {
  status: AgentTurnStatus;
  /** How many messages the turn has, whatever page was asked for. */
  messageCount?: number;
  /** Client-executed tool calls waiting for `submitToolOutput`. */
  awaitingOutput: Array<{ toolCallId: string; toolName: string; input: unknown }>;
  /** Sub-agents still working that list nothing waiting yet: more calls may come to wait (absent when none). */
  subAgentsWorking?: number;
}
