import type { ModelMessage, ToolResultOutput, ToolResultPart } from '../protocol';
import { isContentRef, type ContentStore } from './content-store';

/** Outputs larger than this (as JSON) are stored once and referenced; history keeps a preview. */
export const inlineOutputLimitBytes = 4 * 1024;
const previewCharacters = 300;

/** The reference a stubbed part carries, if any. */
export function storedContentRef(part: {
  providerOptions?: Record<string, Record<string, unknown>>;
}): string | undefined {
  const ref = part.providerOptions?.tollgate?.contentRef;
  return isContentRef(ref) ? ref : undefined;
}

/**
 * A tool result with a large output stored and replaced by a preview. The preview is a `text`
 * output, so the part stays a valid AI SDK part everywhere (the Temporal UI, a bot, the AI SDK);
 * `providerOptions.tollgate.contentRef` names the full output, which the model always gets.
 */
export async function storeLargeOutput(store: ContentStore, part: ToolResultPart): Promise<ToolResultPart> {
  const text = JSON.stringify(part.output);
  if (Buffer.byteLength(text) <= inlineOutputLimitBytes) return part;
  const ref = await store.put(part.output);
  const full = part.output.type === 'text' || part.output.type === 'error-text' ? part.output.value : text;
  const preview: ToolResultOutput = {
    type: 'text',
    value: `${full.slice(0, previewCharacters)}… [${Buffer.byteLength(text)} bytes in Tollgate's content store: ${ref}]`,
  };
  return {
    ...part,
    output: preview,
    providerOptions: { ...part.providerOptions, tollgate: { ...part.providerOptions?.tollgate, contentRef: ref } },
  };
}

/**
 * `messages` with every stored output put back in full: for the model (from the store, where a missing value is an
 * error), or for a reader that may keep a preview (`read` resolves undefined for an output it cannot read).
 */
export async function resolveStoredContent<T extends ModelMessage>(
  read: ContentStore | ((ref: string) => Promise<unknown>),
  messages: readonly T[],
): Promise<T[]> {
  const get = typeof read === 'function' ? read : (ref: string) => read.get(ref);
  return Promise.all(
    messages.map(async (message): Promise<T> => {
      if (message.role !== 'tool') return message;
      let resolved = false;
      const content = await Promise.all(
        message.content.map(async (part) => {
          const ref = part.type === 'tool-result' ? storedContentRef(part) : undefined;
          if (!ref || part.type !== 'tool-result') return part;
          const output = await get(ref);
          if (output === undefined) return part;
          resolved = true;
          return { ...part, output: output as ToolResultOutput };
        }),
      );
      return resolved ? { ...message, content } : message;
    }),
  );
}
