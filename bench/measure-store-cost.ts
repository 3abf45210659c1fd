import type { TollgateClient } from '../src/client';
import type { BenchModel } from './model-process';
import { measureGrowth } from './measure-growth';
import { summarise, type LatencySummary } from './stats';
import { cpuMillisecondsOf, type WorkerChild } from './worker-child';
import type { RequestCounts } from './counting-proxy';

/** What one content store costs per model step, from turns of tool calls that each write a 32 KiB output. */
export interface StoreCost {
  /** Turns measured and the steps of each. */
  turns: number;
  steps: number;
  /** Wall time per model step (ms), one value per turn. */
  wallMsPerStep: LatencySummary;
  /** The worker's CPU time per model step (ms), one value per turn. */
  workerCpuMsPerStep: LatencySummary;
  /** Turns that did not complete, with how they ended. */
  failures: string[];
  /** Requests to the store per model step, by HTTP method, over the completed turns (a store that counts them: S3). */
  requestsPerStep?: RequestCounts;
}

/** One store's side of the comparison: a worker using it, and a client of that worker's task queue. */
export interface StoreUnderTest {
  name: string;
  tollgate: TollgateClient;
  worker: WorkerChild;
  /** The store's requests since the last call, by method (S3 behind a counting proxy); none for the folder store. */
  takeRequests?: () => RequestCounts;
}

/**
 * The folder store against the S3 store, side by side: `rounds` turns of `steps` steps on each, alternating, every
 * step a model call whose transcript and 32 KiB tool output the worker writes to its store.
 */
export async function measureStoreCost(
  stores: readonly StoreUnderTest[],
  model: BenchModel,
  options: { rounds: number; steps: number; progress: (line: string) => void },
): Promise<Map<string, StoreCost>> {
  const samples = new Map(
    stores.map((store) => [
      store.name,
      { wall: [] as number[], cpu: [] as number[], failures: [] as string[], requests: {} as RequestCounts, steps: 0 },
    ]),
  );
  for (let round = 1; round <= options.rounds; round++) {
    const ordered = round % 2 === 0 ? [...stores].reverse() : stores;
    for (const store of ordered) {
      const sample = samples.get(store.name);
      if (!sample) continue;
      store.takeRequests?.();
      const cpuBefore = cpuMillisecondsOf(store.worker.pid);
      const result = await measureGrowth(store.tollgate, model, store.worker, options.steps, {
        timeoutMs: 60_000 + options.steps * 1_000,
        key: `[bench-store-${store.name}-${round}]`,
        progress: (line) => options.progress(`${store.name} store: ${line}`),
      });
      const cpuAfter = cpuMillisecondsOf(store.worker.pid);
      const requests = store.takeRequests?.();
      options.progress(`${store.name} store, round ${round}/${options.rounds}: ${(result.wallMs / 1000).toFixed(1)} s`);
      if (!result.completed) {
        sample.failures.push(result.outcome);
        continue;
      }
      // A step is a model call; the turn makes one more for its answer.
      const modelSteps = options.steps + 1;
      sample.wall.push(result.wallMs / modelSteps);
      if (requests) {
        for (const [method, count] of Object.entries(requests)) {
          sample.requests[method] = (sample.requests[method] ?? 0) + count;
        }
        sample.steps += modelSteps;
      }
      if (cpuBefore !== undefined && cpuAfter !== undefined) sample.cpu.push((cpuAfter - cpuBefore) / modelSteps);
    }
  }
  return new Map(
    [...samples].map(([name, sample]) => [
      name,
      {
        turns: sample.wall.length,
        steps: options.steps,
        wallMsPerStep: summarise(sample.wall),
        workerCpuMsPerStep: summarise(sample.cpu),
        failures: sample.failures,
        ...(sample.steps > 0 && { requestsPerStep: perUnit(sample.requests, sample.steps) }),
      },
    ]),
  );
}

/** Request counts divided by how many steps or turns made them. */
export function perUnit(counts: RequestCounts, units: number): RequestCounts {
  return Object.fromEntries(Object.entries(counts).map(([method, count]) => [method, count / units]));
}
