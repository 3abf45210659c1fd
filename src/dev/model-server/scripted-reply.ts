import type { RecordedRequest } from './recorded-request';

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Defaults to `call_<n>`, unique per server. */
  id?: string;
  /** The tool's name. */
  name: string;
  /** An object is sent as JSON; a string is sent verbatim, so tests can send malformed JSON. */
  arguments: unknown;
}

/** An MCP tool call the provider asks approval for before it runs it (Responses API only). */
export interface ScriptedMcpApprovalRequest {
  /** Defaults to `mcpr_<n>`, unique per server. It is also the approval's id. */
  id?: string;
  /** The MCP server's label, as the request's `mcp` tool names it. */
  serverLabel: string;
  /** The MCP tool's name. */
  name: string;
  /** An object is sent as JSON; a string is sent verbatim. */
  arguments: unknown;
}

/** An MCP tool call the provider reports as already run (Responses API only). */
export interface ScriptedMcpCall {
  /** Defaults to `mcp_<n>`, unique per server. */
  id?: string;
  /** The MCP server's label. */
  serverLabel: string;
  /** The MCP tool's name. */
  name: string;
  /** An object is sent as JSON; a string is sent verbatim. */
  arguments: unknown;
  /** What the tool returned. */
  output?: string;
  /** What went wrong, for a failed call. */
  error?: string;
}

/** What the scripted model says: text, tool calls, or both; on `/v1/responses` also MCP items. */
export interface ModelReply {
  /** The assistant's text. */
  text?: string;
  /** Tool calls, in order. */
  toolCalls?: ScriptedToolCall[];
  /** MCP calls waiting for approval; only `/v1/responses` can carry them. */
  mcpApprovalRequests?: ScriptedMcpApprovalRequest[];
  /** MCP calls the provider ran; only `/v1/responses` can carry them. */
  mcpCalls?: ScriptedMcpCall[];
  /** Defaults to `tool_calls` when there are tool calls and `stop` otherwise. */
  finishReason?: string;
  /**
   * Reasoning the model shows before it answers: streamed as `reasoning_content` deltas on Chat Completions and as
   * a reasoning item with a summary on the Responses API (as reasoning models do); not sent when not streaming.
   */
  reasoning?: string;
  /** When streaming, wait this long between chunks (overrides the server's `streamDelayMs`). */
  streamDelayMs?: number;
}

/** An HTTP error the server answers with, in OpenAI's error body format. */
export interface ModelErrorReply {
  /** The HTTP status and the fields of OpenAI's `error` object. */
  error: { status: number; message: string; type?: string; code?: string };
}

/** A fixed answer: a reply or an HTTP error. */
export type ScriptedAnswer = ModelReply | ModelErrorReply;

/** One scripted step: a fixed answer, or a function that computes it from the request. */
export type ScriptedReply = ScriptedAnswer | ((request: RecordedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>);

/** A reply with every default filled in, ready to be written to the wire. */
export interface ResolvedReply {
  /** The assistant's text, or null when it only calls tools. */
  text: string | null;
  /** Tool calls with ids and their arguments as strings. */
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** Why the model stopped. */
  finishReason: string;
  /** Reasoning to stream before the answer, if any. */
  reasoning: string | null;
  /** Milliseconds between streamed chunks, when the reply sets it. */
  streamDelayMs?: number;
  /** MCP approval requests with ids and their arguments as strings. */
  mcpApprovalRequests: Array<{ id: string; serverLabel: string; name: string; arguments: string }>;
  /** MCP calls with ids, their arguments as strings, and output or error. */
  mcpCalls: Array<{
    id: string;
    serverLabel: string;
    name: string;
    arguments: string;
    output: string | null;
    error: string | null;
  }>;
}

/** Whether an answer is an HTTP error rather than a reply. */
export function isModelErrorReply(answer: ScriptedAnswer): answer is ModelErrorReply {
  return typeof (answer as ModelErrorReply).error === 'object' && (answer as ModelErrorReply).error !== null;
}

/** Whether a reply holds MCP items, which Chat Completions cannot carry. */
export function hasMcpItems(reply: ModelReply): boolean {
  return (reply.mcpApprovalRequests?.length ?? 0) > 0 || (reply.mcpCalls?.length ?? 0) > 0;
}

/**
 * Fills in ids, argument strings and the finish reason. `nextId` makes an id with a prefix: `call` for tool calls,
 * `mcpr` for MCP approval requests and `mcp` for MCP calls, as OpenAI's ids begin.
 */
export function resolveModelReply(
  reply: ModelReply,
  nextId: (prefix: 'call' | 'mcpr' | 'mcp') => string,
): ResolvedReply {
  const toolCalls = (reply.toolCalls ?? []).map((toolCall) => ({
    id: toolCall.id ?? nextId('call'),
    name: toolCall.name,
    arguments: argumentsText(toolCall.arguments),
  }));
  const asksForCalls = toolCalls.length > 0 || (reply.mcpApprovalRequests?.length ?? 0) > 0;
  return {
    text: reply.text ?? (asksForCalls || (reply.mcpCalls?.length ?? 0) > 0 ? null : ''),
    toolCalls,
    finishReason: reply.finishReason ?? (asksForCalls ? 'tool_calls' : 'stop'),
    reasoning: reply.reasoning ?? null,
    ...(reply.streamDelayMs !== undefined && { streamDelayMs: reply.streamDelayMs }),
    mcpApprovalRequests: (reply.mcpApprovalRequests ?? []).map((request) => ({
      id: request.id ?? nextId('mcpr'),
      serverLabel: request.serverLabel,
      name: request.name,
      arguments: argumentsText(request.arguments),
    })),
    mcpCalls: (reply.mcpCalls ?? []).map((call) => ({
      id: call.id ?? nextId('mcp'),
      serverLabel: call.serverLabel,
      name: call.name,
      arguments: argumentsText(call.arguments),
      output: call.output ?? null,
      error: call.error ?? null,
    })),
  };
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '{}';
  return JSON.stringify(value);
}
