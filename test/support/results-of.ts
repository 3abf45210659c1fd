import type { ToolResultPart } from '../../src/protocol';

/**
 * The `tool-result` parts of a turn's messages, in order: what the model was told about each call (ran, denied,
 * expired, refused). Takes any message list (a result's `messages`, a history read back) without checking its shape.
 */
export function resultsOf(messages: ReadonlyArray<{ role: string; content: unknown }>): ToolResultPart[] {
  return messages.flatMap((message) =>
    message.role === 'tool' && Array.isArray(message.content)
      ? (message.content as Array<{ type: string }>).filter(
          (part): part is ToolResultPart => part.type === 'tool-result',
        )
      : [],
  );
}
