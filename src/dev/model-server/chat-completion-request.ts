/** One text part of a message whose content is an array of parts. */
export interface ChatContentPart {
  /** `text` for text parts; other part types are kept but carry no text. */
  type: string;
  /** The text of a `text` part. */
  text?: string;
}

/** A tool call as the assistant made it, in the OpenAI wire shape. */
export interface ChatToolCall {
  /** The id the tool message answers with `tool_call_id`. */
  id: string;
  /** Always `function` for the calls this server makes. */
  type: string;
  /** Which tool, and its arguments as a JSON string. */
  function: { name: string; arguments: string };
}

/** A chat message as the client sent it; loose because the server must accept what real clients send. */
export interface ChatMessage {
  /** `system`, `developer`, `user`, `assistant` or `tool`. */
  role: string;
  /** A string, an array of parts, or null for an assistant message that only calls tools. */
  content?: string | ChatContentPart[] | null;
  /** The tool calls of an assistant message. */
  tool_calls?: ChatToolCall[];
  /** The call a tool message answers. */
  tool_call_id?: string;
  /** Optional participant name. */
  name?: string;
}

/** A tool the client offered to the model. */
export interface ChatTool {
  /** `function` for function tools. */
  type: string;
  /** The function's name, description and JSON schema. */
  function?: { name: string; description?: string; parameters?: unknown };
}

/** The parts of a chat completion request body the server acts on. */
export interface ChatCompletionRequest {
  /** The parsed JSON body, untouched. */
  body: Record<string, unknown>;
  /** The conversation so far. */
  messages: ChatMessage[];
  /** The tools offered, empty when none. */
  tools: ChatTool[];
  /** Whether the client asked for server-sent events. */
  stream: boolean;
  /** Whether the client asked for a usage chunk at the end of the stream. */
  includeUsage: boolean;
  /** The model the client asked for. */
  model: string;
}

/** The model name this server reports when the client names none. */
export const scriptedModelName = 'tollgate-scripted';

/**
 * Reads a parsed JSON body as a chat completion request.
 * Returns a message for the client when the body cannot be one; extra fields are accepted, as OpenAI does.
 */
export function parseChatCompletionRequest(body: unknown): ChatCompletionRequest | { invalid: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { invalid: 'The request body must be a JSON object.' };
  }
  const record = body as Record<string, unknown>;
  if (!Array.isArray(record.messages)) {
    return { invalid: "'messages' is a required property and must be an array." };
  }
  const invalidMessageIndex = record.messages.findIndex(
    (message: unknown) =>
      typeof message !== 'object' || message === null || typeof (message as ChatMessage).role !== 'string',
  );
  if (invalidMessageIndex !== -1) {
    return { invalid: `'messages.${invalidMessageIndex}' must be an object with a string 'role'.` };
  }
  if (record.tools !== undefined && record.tools !== null && !Array.isArray(record.tools)) {
    return { invalid: "'tools' must be an array." };
  }
  const streamOptions = record.stream_options as { include_usage?: unknown } | null | undefined;
  return {
    body: record,
    messages: record.messages as ChatMessage[],
    tools: (record.tools ?? []) as ChatTool[],
    stream: record.stream === true,
    includeUsage: streamOptions?.include_usage === true,
    model: typeof record.model === 'string' && record.model !== '' ? record.model : scriptedModelName,
  };
}

/** The names of the function tools offered. */
export function toolNamesOf(tools: readonly ChatTool[]): string[] {
  return tools.flatMap((tool) => (typeof tool.function?.name === 'string' ? [tool.function.name] : []));
}
