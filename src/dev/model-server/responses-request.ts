import type { ChatTool } from './chat-completion-request';
import { scriptedModelName } from './chat-completion-request';

/** One part of a Responses API message's content: `input_text`, `output_text`, or a kind this server ignores. */
export interface ResponsesContentPart {
  /** `input_text`, `output_text`, `refusal`, `input_image`, … */
  type: string;
  /** The text of a text part. */
  text?: string;
}

/**
 * One Responses API input item as the client sent it. Loose, because the server must accept what real clients
 * send; only the fields of the kinds it reads are named.
 */
export interface ResponsesInputItem {
  /** `message` (or absent, for the easy message form), `function_call`, `function_call_output`, `mcp_…`. */
  type?: string;
  /** The role of a message: `system`, `developer`, `user` or `assistant`. */
  role?: string;
  /** A message's content: a string or content parts. */
  content?: string | ResponsesContentPart[];
  /** The item's id (`mcp_approval_request`, `mcp_call`, output items sent back). */
  id?: string;
  /** The call a `function_call` makes or a `function_call_output` answers. */
  call_id?: string;
  /** The tool of a `function_call`, `mcp_approval_request` or `mcp_call`. */
  name?: string;
  /** The arguments of a call, as a JSON string. */
  arguments?: string;
  /** What a `function_call_output` or an `mcp_call` returned. */
  output?: string | ResponsesContentPart[] | null;
  /** What went wrong in an `mcp_call`. */
  error?: string | null;
  /** The MCP server of an `mcp_…` item. */
  server_label?: string;
  /** The `mcp_approval_request` an `mcp_approval_response` answers. */
  approval_request_id?: string | null;
  /** The decision of an `mcp_approval_response`. */
  approve?: boolean;
  /** The reason given with an `mcp_approval_response`, if any. */
  reason?: string | null;
}

/** A tool offered in a Responses API request: a flat `function` tool, an `mcp` server, or another kind. */
export interface ResponsesTool {
  /** `function`, `mcp`, `web_search`, … */
  type: string;
  /** A function tool's name. */
  name?: string;
  /** A function tool's description. */
  description?: string | null;
  /** A function tool's JSON schema. */
  parameters?: unknown;
  /** An MCP tool's label, which its `mcp_…` items carry. */
  server_label?: string;
  /** Where the provider reaches the MCP server. */
  server_url?: string;
  /** `always`, `never` or a filter. */
  require_approval?: unknown;
  /** The MCP server's tools the model may use. */
  allowed_tools?: unknown;
}

/** The parts of a `POST /v1/responses` body the server acts on. */
export interface ResponsesRequest {
  /** The parsed JSON body, untouched. */
  body: Record<string, unknown>;
  /** The input items; a string input becomes one user message item. */
  input: ResponsesInputItem[];
  /** The top-level instructions, if any. */
  instructions?: string;
  /** The tools offered, empty when none. */
  tools: ResponsesTool[];
  /** Whether the client asked for server-sent events. */
  stream: boolean;
  /** The model the client asked for. */
  model: string;
}

/**
 * Reads a parsed JSON body as a Responses API request.
 * Returns a message for the client when the body cannot be one; extra fields are accepted, as OpenAI does.
 */
export function parseResponsesRequest(body: unknown): ResponsesRequest | { invalid: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { invalid: 'The request body must be a JSON object.' };
  }
  const record = body as Record<string, unknown>;
  const input = record.input;
  if (typeof input !== 'string' && !Array.isArray(input)) {
    // OpenAI also allows a stored prompt or previous_response_id instead; this server keeps no state.
    return { invalid: "'input' is a required property and must be a string or an array of items." };
  }
  if (Array.isArray(input)) {
    const invalidIndex = input.findIndex((item: unknown) => typeof item !== 'object' || item === null);
    if (invalidIndex !== -1) return { invalid: `'input.${invalidIndex}' must be an object.` };
  }
  if (record.tools !== undefined && record.tools !== null && !Array.isArray(record.tools)) {
    return { invalid: "'tools' must be an array." };
  }
  return {
    body: record,
    input: typeof input === 'string' ? [{ role: 'user', content: input }] : (input as ResponsesInputItem[]),
    ...(typeof record.instructions === 'string' && { instructions: record.instructions }),
    tools: (record.tools ?? []) as ResponsesTool[],
    stream: record.stream === true,
    model: typeof record.model === 'string' && record.model !== '' ? record.model : scriptedModelName,
  };
}

/** The function tools among Responses tools, in the Chat Completions shape the rules and `toolNames` read. */
export function chatToolsOf(tools: readonly ResponsesTool[]): ChatTool[] {
  return tools.flatMap((tool): ChatTool[] =>
    tool.type === 'function' && typeof tool.name === 'string'
      ? [
          {
            type: 'function',
            function: {
              name: tool.name,
              ...(typeof tool.description === 'string' && { description: tool.description }),
              parameters: tool.parameters,
            },
          },
        ]
      : [],
  );
}
