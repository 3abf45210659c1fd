import type { Stall } from './stall-monitor';

/** What a benchmark worker process tells the benchmark. */
export type WorkerProcessMessage =
  | { type: 'ready' }
  | { type: 'tool-start'; turn: string; at: number }
  | { type: 'collected' }
  | ({ type: 'stall' } & Stall);

/** What the benchmark asks of a worker process. */
export type BenchmarkMessage = { type: 'collect-garbage' } | { type: 'stop' };

/** Which worker a process runs. */
export type BenchSystem = 'baseline' | 'handLoop' | 'tollgate';

/** The settings a worker process reads from its environment. */
export const workerEnvironment = {
  system: 'BENCH_SYSTEM',
  address: 'BENCH_TEMPORAL_ADDRESS',
  taskQueue: 'BENCH_TASK_QUEUE',
  bundle: 'BENCH_WORKFLOW_BUNDLE',
  modelURL: 'BENCH_MODEL_URL',
  maxCachedWorkflows: 'BENCH_MAX_CACHED_WORKFLOWS',
  /** `tollgate`: the baselines' workers get Tollgate's Worker.create defaults too (src/worker-defaults.ts); else the SDK's. */
  baselineWorkerSettings: 'BENCH_BASELINE_WORKER_SETTINGS',
  /** `sdk`: Tollgate's worker runs with the SDK's Worker.create defaults instead of its own (src/worker-defaults.ts). */
  tollgateWorkerSettings: 'BENCH_TOLLGATE_WORKER_SETTINGS',
} as const;
