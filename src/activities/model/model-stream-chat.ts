import type OpenAI from 'openai';
import type { ModelStreamReporter } from './model-stream-progress';

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** A Chat Completions answer assembled from its stream: what a non-streamed `choices[0]` would have held. */
export interface AssembledChatMessage {
  content: string | null;
  /** Reasoning some OpenAI-compatible servers send (`reasoning_content`, `reasoning`); OpenAI itself sends none. */
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string;
}

/**
 * Reads a streamed Chat Completion to its end, reporting text and reasoning to `reporter` as they arrive, and
 * returns the same message a non-streamed call would have. Tool call arguments arrive in pieces keyed by index.
 */
export async function assembleChatStream(
  stream: AsyncIterable<ChatCompletionChunk>,
  reporter: ModelStreamReporter,
): Promise<AssembledChatMessage> {
  let content: string | null = null;
  let finishReason: string | undefined;
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta as OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & {
      reasoning_content?: string;
      reasoning?: string;
    };
    if (delta.content) {
      content = (content ?? '') + delta.content;
      reporter.addText(delta.content);
    }
    reporter.addReasoning(delta.reasoning_content ?? delta.reasoning);
    for (const piece of delta.tool_calls ?? []) {
      let call = calls[piece.index];
      if (!call) {
        call = { id: piece.id ?? `call_${piece.index}`, name: '', arguments: '' };
        calls[piece.index] = call;
      }
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) {
        const first = call.name === '';
        call.name += piece.function.name;
        if (first) reporter.addToolCall(call.id, call.name);
      }
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  reporter.flush();
  if (finishReason === undefined) throw new Error('the stream ended without a finish reason');
  return {
    content,
    reasoning: reporter.reasoning,
    toolCalls: calls.filter((call) => call !== undefined),
    finishReason,
  };
}
