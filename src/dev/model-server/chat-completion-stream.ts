import { estimateUsage, type CompletionContext } from './chat-completion-response';
import type { ResolvedReply } from './scripted-reply';

/** How many characters of tool call arguments go in one chunk; small, so clients really have to assemble them. */
export const argumentsChunkLength = 16;

/**
 * The `chat.completion.chunk` objects of a streamed reply, in order: the role, the text a word at a time, each tool
 * call (name first, then its arguments in pieces), the finish reason, and a usage chunk when asked for.
 */
export function buildChatCompletionChunks(
  reply: ResolvedReply,
  context: CompletionContext,
  includeUsage: boolean,
): Array<Record<string, unknown>> {
  // With include_usage, OpenAI sends `usage: null` on every chunk but the last.
  const usageField = includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> => ({
    id: context.id,
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...usageField,
  });

  const chunks = [chunk({ role: 'assistant', content: '', refusal: null })];
  // The field DeepSeek, vLLM and other OpenAI-compatible servers stream reasoning in.
  for (const piece of splitIntoWords(reply.reasoning ?? '')) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of splitIntoWords(reply.text ?? '')) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((toolCall, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: '' } }],
      }),
    );
    for (const piece of splitIntoPieces(toolCall.arguments, argumentsChunkLength)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, reply.finishReason));
  if (includeUsage) {
    chunks.push({
      id: context.id,
      object: 'chat.completion.chunk',
      created: context.created,
      model: context.model,
      system_fingerprint: null,
      choices: [],
      usage: estimateUsage(reply, context.messages),
    });
  }
  return chunks;
}

/** Encodes chunks as server-sent events, one string per event, ending with `data: [DONE]`. */
export function serverSentEvents(chunks: ReadonlyArray<Record<string, unknown>>): string[] {
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), 'data: [DONE]\n\n'];
}

export function splitIntoWords(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

export function splitIntoPieces(text: string, length: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += length) pieces.push(text.slice(start, start + length));
  return pieces;
}
