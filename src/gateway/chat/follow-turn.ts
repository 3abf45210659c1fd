import type { UIMessageChunk } from 'ai';
import type { TurnReader } from './read-turn';
import type { TurnRenderer } from './turn-renderer';
import type { TurnSnapshot } from './turn-snapshot';

/** How often a turn is read while it streams, and how long reads may fail before the chat is told. */
export interface FollowTiming {
  /** Between reads (default 150 ms): describe is cheap, and the query runs only when history has grown. */
  pollIntervalMs?: number;
  /** Reads may fail this long in a row (no worker, Temporal restarting) before the stream ends with an error. */
  unreachableAfterMs?: number;
}

/**
 * Streams one turn to one client until the client has everything the turn can show before someone acts (an
 * approval, a client tool output) or the turn ends; stops early when `signal` aborts (the client went away, and can
 * come back through the resume route).
 */
export async function followTurn(options: {
  reader: TurnReader;
  renderer: TurnRenderer;
  write: (chunk: UIMessageChunk) => void;
  signal: AbortSignal;
  timing?: FollowTiming;
  /** Written before the first chunks: the outcome of a decision that failed, shown after the turn's state. */
  trailingError?: string;
}): Promise<void> {
  const { reader, renderer, write, signal } = options;
  const pollIntervalMs = options.timing?.pollIntervalMs ?? 150;
  const unreachableAfterMs = options.timing?.unreachableAfterMs ?? 30_000;
  let failingSince: number | undefined;
  while (!signal.aborted) {
    let snapshot: TurnSnapshot;
    try {
      snapshot = await reader.read();
      failingSince = undefined;
    } catch (error) {
      failingSince ??= Date.now();
      if (Date.now() - failingSince >= unreachableAfterMs) {
        throw new Error(
          `Turn "${reader.turnId}" is not answering (${(error as Error).message}); is a Tollgate worker running? ` +
            'Reload to pick it up again: nothing is lost.',
        );
      }
      await sleep(Math.max(pollIntervalMs, 500), signal);
      continue;
    }
    for (const chunk of renderer.render(snapshot)) write(chunk);
    if (options.trailingError !== undefined) {
      write({ type: 'error', errorText: options.trailingError });
      return;
    }
    if (snapshot.status === 'failed') {
      write({ type: 'error', errorText: `The turn failed: ${snapshot.failure ?? 'no reason given'}` });
      return;
    }
    if (renderer.isSettled(snapshot)) {
      for (const chunk of renderer.finish(snapshot)) write(chunk);
      return;
    }
    await sleep(pollIntervalMs, signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
