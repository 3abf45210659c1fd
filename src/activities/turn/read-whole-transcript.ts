import { ApplicationFailure } from '@temporalio/common';
import type { ModelMessage, TranscriptPointer } from '../../protocol';
import { readTranscript, type ContentStore } from '../../store';

/**
 * The turn's transcript, read whole. A stored piece that is missing is not like a missing tool output, which the model
 * is told about and can work around: the piece is the conversation itself (what the person asked, which calls were
 * approved and ran), and a model answering without it would act on a history it does not know is cut short. The step
 * fails at once, not after ten retries of the same read, with a message that says what is missing; the turn's
 * failure keeps what it did. A store that cannot be read just now (not a missing piece) is retried as before.
 */
export async function readWholeTranscript(store: ContentStore, transcript: TranscriptPointer): Promise<ModelMessage[]> {
  try {
    return await readTranscript(store, transcript);
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    if (name !== 'ContentNotFound' && name !== 'NotATranscript') throw error;
    throw ApplicationFailure.nonRetryable(
      `The turn's earlier history cannot be read: ${(error as Error).message}`,
      'TranscriptNotFound',
    );
  }
}
