import type { ContentRef, ModelMessage, TranscriptPointer } from '../protocol';
import type { ContentStore } from './content-store';

/** Content under a transcript's reference that is not a piece of transcript. */
export class NotATranscriptError extends Error {
  override readonly name = 'NotATranscript';
  constructor(readonly ref: ContentRef) {
    super(`Content "${ref}" is not a transcript.`);
  }
}

/** One stored piece of a transcript: messages after an earlier piece. */
interface TranscriptNode {
  type: 'tollgate-transcript';
  previous: ContentRef | null;
  messages: ModelMessage[];
}

/**
 * Appends `messages` to the transcript at `head` and returns the new head. Each step stores only
 * what it adds, so a long turn costs storage in proportion to what it did.
 */
export async function appendTranscript(
  store: ContentStore,
  head: ContentRef | undefined,
  messages: readonly ModelMessage[],
): Promise<ContentRef | undefined> {
  if (messages.length === 0) return head;
  const node: TranscriptNode = { type: 'tollgate-transcript', previous: head ?? null, messages: [...messages] };
  return store.put(node);
}

/** Every message of the transcript at `pointer`, oldest first. */
export async function readTranscript(store: ContentStore, pointer: TranscriptPointer): Promise<ModelMessage[]> {
  const pieces: ModelMessage[][] = [pointer.tail];
  let ref: ContentRef | null | undefined = pointer.head;
  while (ref) {
    const node = (await store.get(ref)) as TranscriptNode;
    if (node?.type !== 'tollgate-transcript') throw new NotATranscriptError(ref);
    pieces.push(node.messages);
    ref = node.previous;
  }
  return pieces.reverse().flat();
}
