import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { AgentTurnResult, ModelMessage, TranscriptPointer } from '../protocol';

/** How a conversation's turn ended, as `awaitTurnOutcome` reads it from Temporal. */
export type TurnOutcome =
  | { type: 'completed'; result: AgentTurnResult }
  | { type: 'failed'; message: string; kept?: { messages: ModelMessage[]; transcript?: TranscriptPointer } };

/** How often the wait tells Temporal it is alive. */
const heartbeatEveryMs = 20_000;

/**
 * Waits for a turn's outcome, following it through continue-as-new. A conversation that continued as new
 * while its turn waited is no longer that turn's parent run, so it learns the outcome this way: from the
 * server, never from a signal someone could forge. It heartbeats while it waits, so a dead worker is noticed
 * and the wait taken up elsewhere.
 */
export async function awaitTurnOutcome(input: { turnId: string }): Promise<TurnOutcome> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), heartbeatEveryMs);
  try {
    const handle = context.client.workflow.getHandle(input.turnId);
    const result = (await Promise.race([handle.result(), context.cancelled])) as AgentTurnResult;
    return { type: 'completed', result };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const cause = error.cause;
    const details = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
    const { messages, transcript } = (details ?? {}) as { messages?: unknown; transcript?: TranscriptPointer };
    return {
      type: 'failed',
      message: cause?.message ?? error.message,
      ...(Array.isArray(messages) && {
        kept: { messages: messages as ModelMessage[], ...(transcript && { transcript }) },
      }),
    };
  } finally {
    clearInterval(beat);
  }
}
