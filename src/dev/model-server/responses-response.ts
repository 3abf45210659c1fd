import type { ChatMessage } from './chat-completion-request';
import { estimateUsage } from './chat-completion-response';
import type { ResponsesTool } from './responses-request';
import type { ResolvedReply } from './scripted-reply';

/** What the answer to one Responses API request is built from besides the reply. */
export interface ResponseContext {
  /** The `resp_…` id; output item ids derive from it. */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The model the client asked for. */
  model: string;
  /** The request's instructions, echoed as OpenAI does. */
  instructions?: string;
  /** The tools offered, echoed as OpenAI does. */
  tools: ResponsesTool[];
  /** The conversation, used to estimate usage. */
  messages: ChatMessage[];
}

/**
 * A non-streamed `response` object, as `client.responses.create` returns it. Output items come in the order a
 * provider produces them: MCP calls it already ran, then the text, then function calls, then MCP calls waiting
 * for approval. `finishReason: 'length'` makes an incomplete response, as running out of output tokens does.
 */
export function buildResponse(reply: ResolvedReply, context: ResponseContext): Record<string, unknown> {
  const output: Array<Record<string, unknown>> = [
    ...reply.mcpCalls.map((call) => ({
      type: 'mcp_call',
      id: call.id,
      server_label: call.serverLabel,
      name: call.name,
      arguments: call.arguments,
      output: call.output,
      error: call.error,
      approval_request_id: null,
      status: call.error === null ? 'completed' : 'failed',
    })),
    ...(reply.text === null
      ? []
      : [
          {
            type: 'message',
            id: `msg_${context.id}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }],
          },
        ]),
    ...reply.toolCalls.map((toolCall) => ({
      type: 'function_call',
      id: `fc_${toolCall.id}`,
      call_id: toolCall.id,
      name: toolCall.name,
      arguments: toolCall.arguments,
      status: 'completed',
    })),
    ...reply.mcpApprovalRequests.map((request) => ({
      type: 'mcp_approval_request',
      id: request.id,
      server_label: request.serverLabel,
      name: request.name,
      arguments: request.arguments,
    })),
  ];
  const incomplete = reply.finishReason === 'length';
  const usage = estimateUsage(reply, context.messages);
  return {
    id: context.id,
    object: 'response',
    created_at: context.createdAt,
    status: incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: context.instructions ?? null,
    metadata: {},
    model: context.model,
    output,
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: context.tools,
    top_p: 1,
    store: false,
    usage: {
      input_tokens: usage.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.total_tokens,
    },
  };
}
