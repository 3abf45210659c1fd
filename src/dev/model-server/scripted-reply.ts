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

/** What the scripted model says: text, tool calls, or both. */
export interface ModelReply {
  /** The assistant's text. */
  text?: string;
  /** Tool calls, in order. */
  toolCalls?: ScriptedToolCall[];
  /** Defaults to `tool_calls` when there are tool calls and `stop` otherwise. */
  finishReason?: string;
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
}

/** Whether an answer is an HTTP error rather than a reply. */
export function isModelErrorReply(answer: ScriptedAnswer): answer is ModelErrorReply {
  return typeof (answer as ModelErrorReply).error === 'object' && (answer as ModelErrorReply).error !== null;
}

/** Fills in tool call ids, argument strings and the finish reason. */
export function resolveModelReply(reply: ModelReply, nextToolCallId: () => string): ResolvedReply {
  const toolCalls = (reply.toolCalls ?? []).map((toolCall) => ({
    id: toolCall.id ?? nextToolCallId(),
    name: toolCall.name,
    arguments: argumentsText(toolCall.arguments),
  }));
  return {
    text: reply.text ?? (toolCalls.length > 0 ? null : ''),
    toolCalls,
    finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  };
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '{}';
  return JSON.stringify(value);
}
