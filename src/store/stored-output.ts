import { toolResultOutputSchema, type ModelMessage, type ToolResultOutput, type ToolResultPart } from '../protocol';
import { isContentRef, type ContentStore } from './content-store';

/** Outputs larger than this (as JSON) are stored once and referenced; history keeps a preview. */
export const inlineOutputLimitBytes = 4 * 1024;
const previewCharacters = 300;

type StubLike = { providerOptions?: Record<string, Record<string, unknown>> };

/**
 * The reference a stubbed part carries, if any: on the part (a worker's tool), or on its output (a client tool's
 * output, stored when it was submitted, before the turn wrote the part).
 */
export function storedContentRef(part: StubLike & { output?: unknown }): string | undefined {
  const ref =
    part.providerOptions?.tollgate?.contentRef ??
    (part.output as StubLike | undefined)?.providerOptions?.tollgate?.contentRef;
  return isContentRef(ref) ? ref : undefined;
}

/**
 * The turn a stubbed part says produced its output (`providerOptions.tollgate.contentTurn`), if it names one. A ref
 * is read through this turn: whoever may read the turn, and finds the ref among its messages, may read the content.
 */
export function storedContentTurn(part: StubLike & { output?: unknown }): string | undefined {
  const turn =
    part.providerOptions?.tollgate?.contentTurn ??
    (part.output as StubLike | undefined)?.providerOptions?.tollgate?.contentTurn;
  return typeof turn === 'string' && turn.length > 0 ? turn : undefined;
}

/**
 * A tool result with a large output stored and replaced by a preview. The preview is a `text`
 * output, so the part stays a valid AI SDK part everywhere (the Temporal UI, a bot, the AI SDK);
 * `providerOptions.tollgate.contentRef` names the full output, which the model always gets, and
 * `contentTurn` (when `turn` is given) the turn that produced it, through which the output is read.
 */
export async function storeLargeOutput(
  store: ContentStore,
  part: ToolResultPart,
  turn?: string,
): Promise<ToolResultPart> {
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
    providerOptions: {
      ...part.providerOptions,
      tollgate: {
        ...part.providerOptions?.tollgate,
        contentRef: ref,
        ...(turn !== undefined && { contentTurn: turn }),
      },
    },
  };
}

/**
 * `messages` with every stored output put back in full.
 *
 * - From a {@link ContentStore} (what the model gets): an output the store does not have, or cannot give back as an
 *   output, becomes an `error-text` result the model reads (saying so, with the preview history kept), never a
 *   failed step: one lost output must not cost the whole turn.
 * - From a function (a reader that may keep a preview): `read` resolves undefined for an output it cannot or may
 *   not read, and the part stays the preview.
 */
export async function resolveStoredContent<T extends ModelMessage>(
  read: ContentStore | ((ref: string, part: ToolResultPart) => Promise<unknown>),
  messages: readonly T[],
): Promise<T[]> {
  const get = typeof read === 'function' ? read : (ref: string, part: ToolResultPart) => forTheModel(read, ref, part);
  return Promise.all(
    messages.map(async (message): Promise<T> => {
      if (message.role !== 'tool') return message;
      let resolved = false;
      const content = await Promise.all(
        message.content.map(async (part) => {
          const ref = part.type === 'tool-result' ? storedContentRef(part) : undefined;
          if (!ref || part.type !== 'tool-result') return part;
          const output = await get(ref, part);
          if (output === undefined) return part;
          resolved = true;
          return { ...part, output: output as ToolResultOutput };
        }),
      );
      return resolved ? { ...message, content } : message;
    }),
  );
}

/** A stored output for the model: the output itself, or an `error-text` that says why it is not there. */
async function forTheModel(store: ContentStore, ref: string, part: ToolResultPart): Promise<ToolResultOutput> {
  let why: string;
  try {
    const output = await store.get(ref);
    if (toolResultOutputSchema.safeParse(output).success) return output as ToolResultOutput;
    why = 'what is stored under it is not a tool output';
  } catch (error) {
    why =
      (error as Error | undefined)?.name === 'ContentNotFound'
        ? 'it is not in the content store'
        : `the content store could not be read (${(error as Error | undefined)?.message ?? String(error)})`;
  }
  const preview = part.output.type === 'text' ? part.output.value : '';
  return {
    type: 'error-text',
    value:
      `The full output of this ${part.toolName} call (${ref}) is not available: ${why}. ` +
      `Only a preview was kept${preview ? `: ${preview}` : '.'}`,
  };
}
