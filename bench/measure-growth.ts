import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TollgateClient } from '../src/client';
import type { BenchModel } from './model-process';
import { withTimeout } from './async-helpers';
import { workflowIdOf } from './approval-system';
import { benchToolNames, growthOutputBytes } from './bench-tools';
import { nowMs } from './clock';
import { historySizeOf } from './history-size';
import type { BenchWorkers } from './bench-workers';

/** One long turn: `steps` tool calls of 32 KiB output each, then an answer. */
export interface GrowthResult {
  /** Tool calls the model was scripted to make. */
  steps: number;
  /** Whether the turn ended with status `completed`. */
  completed: boolean;
  /** How it ended: `completed`, another status, or the error (e.g. the server terminated it). */
  outcome: string;
  /** Tool calls that ran. */
  toolRuns: number;
  /** Serialized history size (bytes), whether or not it completed. */
  historyBytes: number;
  /** Events in the history. */
  historyEvents: number;
  /** Largest single payload in the history (bytes), and the event type that holds it. */
  largestPayloadBytes: number;
  largestPayloadEvent: string;
  /** What the turn added to the worker's content store (bytes kept outside history). */
  storeBytes: number;
  /** From start to end or failure (ms). */
  wallMs: number;
}

/** Runs one Tollgate turn of `steps` 32 KiB tool calls and measures its history. */
export async function measureGrowth(
  tollgate: TollgateClient,
  model: BenchModel,
  worker: BenchWorkers,
  steps: number,
  options: {
    timeoutMs: number;
    /** The folder store, whose growth is measured; absent for another store (its growth is then NaN). */
    storeFolder?: string;
    /** The turn's marker; by default one per step count. */
    key?: string;
    progress: (line: string) => void;
  },
): Promise<GrowthResult> {
  const key = options.key ?? `[bench-growth-${steps}]`;
  const calls = Array.from({ length: steps }, (_, step) => ({
    toolCalls: [{ name: benchToolNames.read, arguments: { turn: key, step } }],
  }));
  await model.scriptFor(key, ...calls, { text: `Read ${steps} files of ${growthOutputBytes} bytes.` });
  const storeBefore = options.storeFolder === undefined ? NaN : folderBytes(options.storeFolder);
  const started = nowMs();
  const handle = await tollgate.startTurn(
    {
      messages: [{ role: 'user', content: `${key} read ${steps} files` }],
      tools: [benchToolNames.read],
      maxSteps: steps + 1,
    },
    { workflowId: workflowIdOf(key) },
  );
  const ticker = setInterval(
    () =>
      options.progress(
        `${steps} steps: ${worker.toolStartCount(key)} tools run, ${((nowMs() - started) / 1000).toFixed(0)}s`,
      ),
    5_000,
  );
  let outcome: string;
  try {
    const result = await withTimeout(handle.result(), options.timeoutMs, `the ${steps}-step turn`);
    outcome = result.status;
  } catch (error) {
    outcome = describeFailure(error);
    // A turn that overran must not keep the worker busy during the next figure.
    await handle.terminate('benchmark time limit').catch(() => undefined);
  } finally {
    clearInterval(ticker);
  }
  const wallMs = nowMs() - started;
  const size = await historySizeOf(handle);
  return {
    steps,
    completed: outcome === 'completed',
    outcome,
    toolRuns: worker.toolStartCount(key),
    historyBytes: size.bytes,
    historyEvents: size.events,
    largestPayloadBytes: size.largestPayloadBytes,
    largestPayloadEvent: size.largestPayloadEvent,
    storeBytes: options.storeFolder === undefined ? NaN : folderBytes(options.storeFolder) - storeBefore,
    wallMs,
  };
}

/** The most telling line of a failed turn: the innermost cause's message. */
function describeFailure(error: unknown): string {
  let current = error as { name?: string; message?: string; cause?: unknown } | undefined;
  let message = String(error);
  let terminated = false;
  while (current) {
    if (current.message) message = current.message;
    if (current.name === 'TerminatedFailure') terminated = true;
    current = current.cause as typeof current;
  }
  return terminated ? `terminated: ${message}` : message;
}

/** Bytes of the files under a folder; 0 when it does not exist. */
function folderBytes(folder: string): number {
  let total = 0;
  try {
    for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
    }
  } catch {
    return total;
  }
  return total;
}
