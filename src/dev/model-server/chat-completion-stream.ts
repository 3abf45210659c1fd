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

/**
 * Most chunks one text or one call's arguments is streamed in. A real model's deltas are a few characters each, but a
 * test that scripts megabytes would otherwise make hundreds of thousands of events, and the worker beside the server
 * would spend minutes of a busy machine's CPU parsing them (the oversized-payload tests stalled that way): past this
 * many, the pieces grow instead.
 */
export const maxStreamPieces = 1_000;

/** The text a word at a time (a word with the spaces after it); longer texts in at most {@link maxStreamPieces}. */
export function splitIntoWords(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  if (words.length <= maxStreamPieces) return words;
  const perPiece = Math.ceil(words.length / maxStreamPieces);
  const pieces: string[] = [];
  for (let start = 0; start < words.length; start += perPiece)
    pieces.push(words.slice(start, start + perPiece).join(''));
  return pieces;
}

/** The text in pieces of `length` characters, longer ones when that would make more than {@link maxStreamPieces}. */
export function splitIntoPieces(text: string, length: number): string[] {
  const size = Math.max(length, Math.ceil(text.length / maxStreamPieces));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
