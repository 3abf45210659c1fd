import type { ChatMessage } from './chat-completion-request';
import type { ResolvedReply } from './scripted-reply';

/** What every answer to one request shares: its id, time, model and prompt. */
export interface CompletionContext {
  /** The `chatcmpl-…` id shared by the completion or all its chunks. */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The model the client asked for. */
  model: string;
  /** The prompt, used to estimate usage. */
  messages: ChatMessage[];
}

/** Token counts; estimated at four characters a token, so they are deterministic. */
export interface CompletionUsage {
  /** Tokens in the prompt. */
  prompt_tokens: number;
  /** Tokens in the answer. */
  completion_tokens: number;
  /** Their sum. */
  total_tokens: number;
}

/** A non-streamed `chat.completion` object, as `client.chat.completions.create` returns it. */
export function buildChatCompletion(reply: ResolvedReply, context: CompletionContext): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text, refusal: null };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((toolCall) => ({
      id: toolCall.id,
      type: 'function',
      function: { name: toolCall.name, arguments: toolCall.arguments },
    }));
  }
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: estimateUsage(reply, context.messages),
    system_fingerprint: null,
  };
}

/** Estimates usage for a reply to a prompt. */
export function estimateUsage(reply: ResolvedReply, messages: ChatMessage[]): CompletionUsage {
  const promptTokens = estimateTokens(JSON.stringify(messages));
  const answer = (reply.text ?? '') + reply.toolCalls.map((toolCall) => toolCall.name + toolCall.arguments).join('');
  const completionTokens = estimateTokens(answer);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
