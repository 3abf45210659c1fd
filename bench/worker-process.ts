// One benchmark worker in a process of its own, so that its memory (VmRSS) is separable from the
// benchmark's and from the other worker's. Started by worker-child.ts over an IPC channel.
import { createWriteStream } from 'node:fs';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type RuntimeOptions,
  type WorkerOptions,
} from '@temporalio/worker';
import { contentStoreFromEnvironment } from '../src/store';
import { createTollgateWorker } from '../src/worker';
import { tollgateWorkerDefaults } from '../src/worker-defaults';
import type { BaselineActivities } from './baseline-activities';
import { createBenchTools } from './bench-tools';
import { nowMs } from './clock';
import { watchForStalls } from './stall-monitor';
import { createHandLoopActivities } from './hand-loop-activities';
import { firstActivationSinks } from './first-activations';
import { workerEnvironment, type BenchmarkMessage, type WorkerProcessMessage } from './worker-messages';

/**
 * The SDK's own `Worker.create` defaults for what Tollgate sets otherwise (src/worker-defaults.ts), for
 * `BENCH_TOLLGATE_WORKER_SETTINGS=sdk`: Tollgate's worker as the baselines run by default.
 */
const sdkWorkerDefaults: Pick<
  WorkerOptions,
  'maxConcurrentWorkflowTaskExecutions' | 'stickyQueueScheduleToStartTimeout'
> = {
  maxConcurrentWorkflowTaskExecutions: 40,
  stickyQueueScheduleToStartTimeout: '10s',
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function send(message: WorkerProcessMessage): void {
  process.send?.(message);
}

/**
 * Warnings to stderr; with `BENCH_WORKER_CORE_LOG=<path>`, also Temporal core's debug lines for workflow tasks (a
 * task buffered for a cache slot, an eviction, a history fetched) into `<path>.<system>.log`, to trace a timed-out
 * workflow task to what the worker did with it.
 */
function runtimeOptions(system: string): RuntimeOptions {
  const corePath = process.env.BENCH_WORKER_CORE_LOG;
  if (!corePath) return { logger: new DefaultLogger('WARN') };
  const file = createWriteStream(`${corePath}.${system}.log`);
  const toStderr = new DefaultLogger('WARN');
  return {
    logger: new DefaultLogger('DEBUG', (entry) => {
      file.write(
        `${new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString()} ${entry.level} ${entry.message} ${JSON.stringify(entry.meta ?? {}, (_, value: unknown) => (typeof value === 'bigint' ? String(value) : value))}\n`,
      );
      if (entry.level === 'WARN' || entry.level === 'ERROR') toStderr.log(entry.level, entry.message, entry.meta);
    }),
    // Core's debug lines on workflow tasks; BENCH_WORKER_CORE_LOG_FILTER narrows them (an env filter string, e.g.
    // `warn,temporalio_sdk_core::worker::workflow::workflow_stream=debug`: each task received, buffered or evicted).
    telemetryOptions: {
      logging: {
        filter: process.env.BENCH_WORKER_CORE_LOG_FILTER ?? 'warn,temporalio_sdk_core::worker::workflow=debug',
        forward: {},
      },
    },
  };
}

async function main(): Promise<void> {
  Runtime.install(runtimeOptions(required(workerEnvironment.system)));
  // Pauses of this process's main thread of a second or more, to set beside a burst's timed-out workflow tasks.
  watchForStalls({ intervalMs: 100, thresholdMs: 1_000, report: (stall) => send({ type: 'stall', ...stall }) });
  const system = required(workerEnvironment.system);
  const taskQueue = required(workerEnvironment.taskQueue);
  const workflowBundle = { codePath: required(workerEnvironment.bundle) };
  // Both workers get the same cache, so the memory per waiting turn compares like with like.
  const maxCachedWorkflows = Number(required(workerEnvironment.maxCachedWorkflows));
  const sinks = firstActivationSinks(system);
  const reportToolStart = (turn: string) => send({ type: 'tool-start', turn, at: nowMs() });
  const connection = await NativeConnection.connect({ address: required(workerEnvironment.address) });
  try {
    const baselineActivities: BaselineActivities = {
      runTool: async ({ turn }) => {
        reportToolStart(turn);
        return 'done';
      },
    };
    const model = { baseURL: required(workerEnvironment.modelURL), apiKey: 'bench', model: 'tollgate-scripted' };
    const worker =
      system === 'tollgate'
        ? await createTollgateWorker({
            // Decisions in these tests are unsigned unless a test's policy trusts keys: said explicitly, as an operator must.
            acceptUnsignedDecisions: true,
            connection,
            taskQueue,
            tools: createBenchTools(reportToolStart),
            model,
            workflowBundle,
            // The bench's own store (TOLLGATE_STORE_DIR), or S3 for the content-store figure: createTollgateWorker
            // reads no environment, and would otherwise write to .tollgate/store.
            store: contentStoreFromEnvironment(),
            workerOptions: {
              maxCachedWorkflows,
              ...(sinks && { sinks }),
              ...(process.env[workerEnvironment.tollgateWorkerSettings] === 'sdk' && sdkWorkerDefaults),
            },
          })
        : await Worker.create({
            connection,
            taskQueue,
            workflowBundle,
            activities: system === 'handLoop' ? createHandLoopActivities(model, reportToolStart) : baselineActivities,
            // The SDK's defaults, as a team would start from; or Tollgate's, to compare like with like.
            ...(process.env[workerEnvironment.baselineWorkerSettings] === 'tollgate' &&
              tollgateWorkerDefaults({ maxCachedWorkflows })),
            maxCachedWorkflows,
            ...(sinks && { sinks }),
          });
    await worker.runUntil(
      new Promise<void>((resolve) => {
        process.on('message', (message: BenchmarkMessage) => {
          if (message.type === 'stop') resolve();
          if (message.type === 'collect-garbage') {
            (globalThis as { gc?: () => void }).gc?.();
            send({ type: 'collected' });
          }
        });
        // The benchmark died without stopping us: do not outlive it.
        process.once('disconnect', () => resolve());
        send({ type: 'ready' });
      }),
    );
  } finally {
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
