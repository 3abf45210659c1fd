// `npm run bench`: Tollgate side by side with a bare Temporal workflow, on one dev server started here.
// Figures: decision → tool start, burst throughput, start → approval request, worker memory per waiting
// turn, history per turn, and a growth table of long turns. Progress goes to stderr; the tables to
// stdout; the full report to .tollgate/bench/<date>.json. `npm run bench -- --help` lists the flags.
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TollgateClient } from '../src/client';
import { startDevServer, type DevServer } from '../src/dev/dev-server';
import { ModelProcess } from './model-process';
import { tollgateSearchAttributes } from '../src/dev/search-attributes';
import { tollgateWorkflowBundleOptions } from '../src/worker';
import type { ApprovalSystem, BenchTurn, FiguresKey } from './approval-system';
import { BaselineSystem } from './baseline-system';
import { HandLoopSystem, listsWaiting } from './hand-loop-system';
import { benchUsage, parseBenchOptions, UsageError, type BenchOptions, type DecisionChannel } from './bench-options';
import {
  renderMarkdown,
  renderText,
  type BenchReport,
  type BurstRounds,
  type FigureError,
  type SystemFigures,
} from './bench-report';
import { historySizeOf } from './history-size';
import { measureBurst } from './measure-burst';
import { measureGrowth } from './measure-growth';
import { measureInterleaved, measureLatency, type TurnLimits } from './measure-latency';
import { mean, mediansOf, summarise } from './stats';
import { decisionTimelineOf, waitPhasesOf } from './wait-phases';
import { TollgateSystem } from './tollgate-system';
import { WorkerChild } from './worker-child';
import { WorkerGroup } from './worker-group';
import type { BenchSystem } from './worker-messages';
import { measureStoreCost, perUnit } from './measure-store-cost';
import { CountingProxy } from './counting-proxy';
import { startSeaweedFs } from '../src/dev/seaweedfs';
import { contentStoreFromEnvironment } from '../src/store';
import { firstTasksVariable } from './first-activations';

const startedAt = Date.now();
const outputFolder = path.resolve(__dirname, '../.tollgate/bench');
// The turns' content store (transcripts, large outputs), the bench's own so that its size can be read
// and the dev store stays clean. Both the workers and the client inherit it from the environment.
const storeFolder = path.join(outputFolder, `store-${process.pid}`);
process.env.TOLLGATE_STORE_DIR = storeFolder;
const warmUpTurns = 3;
const latencyLimits: TurnLimits = { pollMs: 5, stepTimeoutMs: 30_000 };
// While hundreds of turns start, a slower poll keeps the queries from becoming the load being measured.
const fillLimits: TurnLimits = { pollMs: 100, stepTimeoutMs: 180_000 };

function progress(line: string): void {
  process.stderr.write(`[bench ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
}

/** Runs a figure; a failure or time limit becomes the figure's error instead of ending the run. */
async function attempt<T>(what: string, measure: () => Promise<T>): Promise<T | FigureError> {
  try {
    return await measure();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    progress(`${what} failed: ${message}`);
    return { error: message };
  }
}

/** Everything the run started, so that it can be stopped however the run ends. */
class Resources {
  server?: DevServer;
  model?: ModelProcess;
  connection?: Connection;
  readonly workers: WorkerChild[] = [];
  readonly files: string[] = [];
  /** Other servers to stop (SeaweedFS). */
  readonly stops: Array<() => Promise<void>> = [];

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop().catch(() => worker.kill())));
    await Promise.all(this.stops.map((stop) => stop().catch(() => undefined)));
    await this.connection?.close().catch(() => undefined);
    await this.model?.close().catch(() => undefined);
    await this.server?.stop().catch(() => undefined);
    for (const file of this.files) rmSync(file, { force: true, recursive: true });
  }

  /** On Ctrl-C: kill at once, the exit hook of the dev server does the rest. */
  killNow(): void {
    for (const worker of this.workers) worker.kill();
    this.model?.kill();
    for (const file of this.files) rmSync(file, { force: true, recursive: true });
  }
}

async function bundle(
  options: Pick<BundleOptions, 'workflowsPath' | 'preloadModules'>,
  name: string,
  resources: Resources,
): Promise<string> {
  const { code } = await bundleWorkflowCode({
    ...options,
    // With BENCH_WORKER_FIRST_TASKS, every worker writes when each run's first workflow task was done (bench/README.md).
    ...(process.env[firstTasksVariable] && {
      workflowInterceptorModules: [require.resolve('./first-activation-interceptor')],
    }),
    logger: quietLogger,
  });
  const file = path.join(outputFolder, `${name}-bundle-${process.pid}.js`);
  writeFileSync(file, code);
  resources.files.push(file);
  return file;
}

async function main(): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (error.message) console.error(error.message);
    console.error(benchUsage);
    process.exit(error.message ? 2 : 0);
  }
  const resources = new Resources();
  const interrupt = (signal: NodeJS.Signals) => {
    progress(`${signal}: stopping`);
    resources.killNow();
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  mkdirSync(outputFolder, { recursive: true });
  resources.files.push(storeFolder);

  try {
    progress('starting the Temporal dev server and bundling both workflows');
    const [server, baselineBundle, handLoopBundle, tollgateBundle] = await Promise.all([
      startDevServer({
        searchAttributes: tollgateSearchAttributes,
        extraArgs: (process.env.TOLLGATE_BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean),
      }).then((server) => (resources.server = server)),
      bundle({ workflowsPath: require.resolve('./baseline-workflow') }, 'baseline', resources),
      bundle({ workflowsPath: require.resolve('./hand-loop-workflow') }, 'hand-loop', resources),
      // The bundle createTollgateWorker builds for itself, with its workflow modules preloaded.
      bundle(tollgateWorkflowBundleOptions(), 'tollgate', resources),
    ]);
    // In a process of its own, as in issue 32's measurement: its CPU is not the benchmark's.
    const model = (resources.model = await ModelProcess.start());
    const connection = (resources.connection = await Connection.connect({
      address: server.address,
      // A long turn's history pages hold megabyte events; the default 4 MB would refuse them.
      channelArgs: { 'grpc.max_receive_message_length': 512 * 1024 * 1024 },
    }));
    const client = new Client({ connection });
    const workerOptions = {
      address: server.address,
      modelURL: model.baseURL,
      maxCachedWorkflows: options.maxCachedWorkflows,
      log: progress,
    };
    progress(`starting the three workers (maxCachedWorkflows ${options.maxCachedWorkflows}), each in its own process`);
    if (listsWaiting())
      progress("the hand-written loop keeps Tollgate's search attributes (BENCH_HAND_LOOP_LISTS_WAITING=1)");
    const [baselineWorker, handLoopWorker, tollgateWorker] = await Promise.all([
      WorkerChild.start({
        ...workerOptions,
        system: 'baseline',
        taskQueue: 'bench-baseline',
        bundlePath: baselineBundle,
      }),
      WorkerChild.start({
        ...workerOptions,
        system: 'handLoop',
        taskQueue: 'bench-hand-loop',
        bundlePath: handLoopBundle,
      }),
      WorkerChild.start({
        ...workerOptions,
        system: 'tollgate',
        taskQueue: 'bench-tollgate',
        bundlePath: tollgateBundle,
      }),
    ]);
    resources.workers.push(baselineWorker, handLoopWorker, tollgateWorker);
    const tollgate = new TollgateClient(client, 'bench-tollgate', undefined, contentStoreFromEnvironment());
    // The systems as decided through one channel; all are always decided the same way. Tollgate with local
    // model steps runs on the same worker, its turns asking for them.
    const systemsDecidedBy = (channel: DecisionChannel, withLocalSteps = true): ApprovalSystem[] => [
      new BaselineSystem(client, 'bench-baseline', baselineWorker, channel),
      new HandLoopSystem(client, model, 'bench-hand-loop', handLoopWorker, channel),
      new TollgateSystem(tollgate, model, tollgateWorker, channel),
      ...(withLocalSteps && options.modelSteps.includes('local')
        ? [new TollgateSystem(tollgate, model, tollgateWorker, channel, 'local')]
        : []),
    ];
    // Latency and history turns are decided as the gateway decides them when update is measured.
    const decidedAsTheGatewayDoes: DecisionChannel = options.decisions.includes('update') ? 'update' : 'signal';
    const systems = systemsDecidedBy(decidedAsTheGatewayDoes, false);

    const figures: Record<FiguresKey, SystemFigures> = {
      baseline: {},
      handLoop: {},
      tollgate: {},
      tollgateLocalSteps: {},
    };
    const completedTurns: Record<FiguresKey, BenchTurn[]> = {
      baseline: [],
      handLoop: [],
      tollgate: [],
      tollgateLocalSteps: [],
    };

    // Warm-up: the first turns pay for caches, JIT and connections; they are not measured.
    for (const system of systems) {
      await attempt(`${system.name} warm-up`, () =>
        measureLatency(system, warmUpTurns, {
          keyPrefix: `bench-${system.name}-warm-up`,
          limits: latencyLimits,
          progress: () => undefined,
        }),
      );
    }

    if (options.only.has('latency') || options.only.has('history')) {
      const samples = options.only.has('latency') ? options.latencySamples : options.historySamples;
      progress(
        `${samples} turns per system one at a time, the systems alternating (start → request, decision → tool start)`,
      );
      const measured = await measureInterleaved(systems, samples, {
        keyPrefix: (system) => `bench-${system.name}-latency`,
        limits: latencyLimits,
        progress: (done) => {
          if (done % 25 === 0) progress(`${done}/${samples} turns per system`);
        },
      });
      for (const [system, result] of measured) {
        if ('error' in result) {
          progress(`${system.name} latency failed: ${result.error}`);
          if (options.only.has('latency')) figures[system.key].latency = result;
          continue;
        }
        completedTurns[system.key] = result.turns;
        if (options.only.has('latency')) {
          const histories = await Promise.all(
            result.turns.slice(0, 20).map(async (turn) => (await system.handle(turn).fetchHistory()).events ?? []),
          ).catch(() => []);
          const phases = histories.map((events) => waitPhasesOf(events));
          const timelines = histories.flatMap((events, index) => {
            const timing = result.timings[index];
            return (timing && decisionTimelineOf(events, timing.decidedAtMs, timing.toolStartedAtMs)) ?? [];
          });
          figures[system.key].latency = {
            startToRequestMs: summarise(result.timings.map((timing) => timing.startToRequestMs)),
            decisionToToolStartMs: summarise(result.timings.map((timing) => timing.decisionToToolStartMs)),
            ...(phases.length > 0 && {
              waitPhases: {
                samples: phases.length,
                ...mediansOf(phases),
              },
            }),
            ...(timelines.length > 0 && {
              decisionTimeline: {
                samples: timelines.length,
                ...mediansOf(timelines),
              },
            }),
          };
        }
      }
    }

    if (options.only.has('history') && options.modelSteps.includes('local')) {
      // Turns with local model steps are measured for their history only: their decision is the same.
      const local = new TollgateSystem(tollgate, model, tollgateWorker, decidedAsTheGatewayDoes, 'local');
      const measured = await attempt(`${local.label} history turns`, () =>
        measureLatency(local, options.historySamples, {
          keyPrefix: `bench-${local.key}-history`,
          limits: latencyLimits,
          progress: () => undefined,
        }),
      );
      if (!('error' in measured)) completedTurns[local.key] = measured.turns;
      systems.push(local);
    }

    if (options.only.has('history')) {
      for (const system of systems) {
        figures[system.key].history = await attempt(`${system.label} history`, async () => {
          const turns = completedTurns[system.key].slice(0, options.historySamples);
          if (turns.length === 0) throw new Error('no completed turn to measure');
          const sizes = await Promise.all(turns.map((turn) => historySizeOf(system.handle(turn))));
          const largest = sizes.reduce((first, second) =>
            second.largestPayloadBytes > first.largestPayloadBytes ? second : first,
          );
          return {
            samples: sizes.length,
            events: mean(sizes.map((size) => size.events)),
            bytes: mean(sizes.map((size) => size.bytes)),
            largestPayloadBytes: largest.largestPayloadBytes,
            largestPayloadEvent: largest.largestPayloadEvent,
            workflowTasks: mean(sizes.map((size) => size.workflowTasks ?? NaN)),
            activities: mean(sizes.map((size) => size.activities ?? NaN)),
            visibilityWrites: mean(sizes.map((size) => size.visibilityWrites ?? NaN)),
          };
        });
      }
    }

    const burstOptions = (keyPrefix: string, system: ApprovalSystem, turns: number) => ({
      keyPrefix,
      startConcurrency: options.startConcurrency,
      inFlight: options.inFlight,
      limits: fillLimits,
      burstTimeoutMs: Math.max(60_000, turns * 100),
      serverPid: server.pid,
      progress: (line: string) => progress(`${system.label} (${system.decideBy}): ${line}`),
    });
    if (options.only.has('burst') || options.only.has('memory')) {
      // A burst on a fresh server runs slower than the next one, whichever system goes first: one
      // unmeasured burst each, then rounds in rotating order so that none always goes first.
      for (const system of systemsDecidedBy(options.decisions[0] as DecisionChannel)) {
        progress(`${system.label}: warm-up burst of ${options.warmUpTurns} turns (not measured)`);
        await attempt(`${system.label} warm-up burst`, () =>
          measureBurst(
            system,
            options.warmUpTurns,
            burstOptions(`bench-${system.key}-burst-warm-up`, system, options.warmUpTurns),
          ),
        );
      }
      let burstIndex = 0;
      for (const channel of options.decisions) {
        const rounds = new Map<FiguresKey, BurstRounds>();
        for (let round = 1; round <= options.rounds; round++) {
          const ordered = rotated(systemsDecidedBy(channel), burstIndex++);
          for (const system of ordered) {
            progress(
              `${system.label}: burst by ${channel}, round ${round}/${options.rounds}: ${options.turns} turns waiting, then decided at once`,
            );
            const measured = await attempt(`${system.label} burst`, () =>
              measureBurst(
                system,
                options.turns,
                burstOptions(`bench-${system.key}-burst-${channel}-${round}`, system, options.turns),
              ),
            );
            const series = rounds.get(system.key) ?? { rounds: [], failures: [] };
            rounds.set(system.key, series);
            if ('error' in measured) series.failures.push(measured.error);
            else series.rounds.push(measured);
          }
        }
        for (const [key, series] of rounds) (figures[key].bursts ??= {})[channel] = series;
      }
    }

    const growth: BenchReport['growth'] = [];
    if (options.only.has('growth')) {
      for (const steps of options.steps) {
        progress(`tollgate: a turn of ${steps} steps with 32 KiB tool outputs`);
        const measured = await attempt(`the ${steps}-step turn`, () =>
          measureGrowth(tollgate, model, tollgateWorker, steps, {
            timeoutMs: 60_000 + steps * 1_000,
            storeFolder,
            progress: (line) => progress(`tollgate: ${line}`),
          }),
        );
        growth.push('error' in measured ? { steps, ...measured } : measured);
      }
    }
    let scaleOut: BenchReport['scaleOut'];
    if (options.only.has('scale')) {
      // One worker process per system against two, each on task queues of their own so that a round with one
      // worker cannot hand work to the other. The two-worker processes are new; the one-worker rounds use the
      // workers every other figure uses.
      const channel: DecisionChannel = options.decisions.includes('update') ? 'update' : 'signal';
      progress(
        `scale-out: starting two more worker processes per system (bursts of ${options.scaleTurns} by ${channel})`,
      );
      const pairOf = (system: BenchSystem, bundlePath: string) =>
        Promise.all(
          [1, 2].map(() =>
            WorkerChild.start({ ...workerOptions, system, taskQueue: `bench-${system}-scale`, bundlePath }),
          ),
        );
      // One system's pair at a time: six processes loading at once on a busy machine overran the start-up limit.
      const baselinePair = await pairOf('baseline', baselineBundle);
      resources.workers.push(...baselinePair);
      const handLoopPair = await pairOf('handLoop', handLoopBundle);
      resources.workers.push(...handLoopPair);
      const tollgatePair = await pairOf('tollgate', tollgateBundle);
      resources.workers.push(...tollgatePair);
      const pairs = [...baselinePair, ...handLoopPair, ...tollgatePair];
      const byWorkers: Record<1 | 2, ApprovalSystem[]> = {
        1: systemsDecidedBy(channel, false),
        2: [
          new BaselineSystem(client, 'bench-baseline-scale', new WorkerGroup(baselinePair), channel),
          new HandLoopSystem(client, model, 'bench-handLoop-scale', new WorkerGroup(handLoopPair), channel),
          new TollgateSystem(
            new TollgateClient(client, 'bench-tollgate-scale', undefined, contentStoreFromEnvironment()),
            model,
            new WorkerGroup(tollgatePair),
            channel,
          ),
        ],
      };
      const results: NonNullable<BenchReport['scaleOut']>['results'] = [];
      for (const workers of [1, 2] as const) {
        for (const system of byWorkers[workers]) {
          progress(
            `scale-out: ${system.label} on ${workers} worker(s): warm-up burst of ${options.scaleTurns} (not measured)`,
          );
          await attempt(`${system.label} scale-out warm-up`, () =>
            measureBurst(
              system,
              options.scaleTurns,
              burstOptions(`bench-${system.key}-scale-${workers}-warm-up`, system, options.scaleTurns),
            ),
          );
        }
      }
      let scaleIndex = 0;
      for (let round = 1; round <= options.rounds; round++) {
        for (const workers of rotated([1, 2] as const, round)) {
          for (const system of rotated(byWorkers[workers], scaleIndex++)) {
            progress(`scale-out: ${system.label} on ${workers} worker(s), round ${round}/${options.rounds}`);
            const measured = await attempt(`${system.label} scale-out burst`, () =>
              measureBurst(
                system,
                options.scaleTurns,
                burstOptions(`bench-${system.key}-scale-${workers}-${round}`, system, options.scaleTurns),
              ),
            );
            results.push({
              system: system.name,
              workers,
              ...('error' in measured ? { error: measured.error } : { burst: measured }),
            });
          }
        }
      }
      scaleOut = { channel, turns: options.scaleTurns, results };
      await Promise.all(pairs.map((worker) => worker.stop()));
    }

    let storeCost: BenchReport['storeCost'];
    if (options.only.has('store')) {
      storeCost = await attempt('the content-store figure', async () => {
        progress('content store: starting SeaweedFS (S3) and a Tollgate worker that uses it');
        const s3Folder = path.join(outputFolder, `seaweedfs-${process.pid}`);
        resources.files.push(s3Folder);
        const s3 = await startSeaweedFs({ folder: s3Folder, bucket: 'bench' });
        resources.stops.push(() => s3.stop());
        // The worker reaches S3 through a proxy that counts its requests: S3 requests per step and per turn.
        const proxy = await CountingProxy.start(s3.endpoint);
        resources.stops.push(() => proxy.stop());
        const s3Environment = { ...s3.environment('bench'), AWS_ENDPOINT_URL_S3: proxy.endpoint };
        const s3Worker = await WorkerChild.start({
          ...workerOptions,
          system: 'tollgate',
          taskQueue: 'bench-tollgate-s3',
          bundlePath: tollgateBundle,
          environment: s3Environment,
        });
        resources.workers.push(s3Worker);
        // The client uses the same store through the same proxy: its requests are counted with the worker's.
        const s3Tollgate = new TollgateClient(
          client,
          'bench-tollgate-s3',
          undefined,
          contentStoreFromEnvironment(s3Environment),
        );
        const measured = await measureStoreCost(
          [
            { name: 'folder', tollgate, worker: tollgateWorker },
            { name: 's3', tollgate: s3Tollgate, worker: s3Worker, takeRequests: () => proxy.take() },
          ],
          model,
          { rounds: Math.max(3, options.rounds), steps: options.storeSteps, progress },
        );
        // The turn every other figure runs (one model step asks, one approved call, the answer), on the S3 store.
        const approvalTurns = 10;
        progress(`content store: ${approvalTurns} turns with one approved call on the S3 store, counting its requests`);
        proxy.take();
        const approved = await measureLatency(
          new TollgateSystem(s3Tollgate, model, s3Worker, decidedAsTheGatewayDoes),
          approvalTurns,
          { keyPrefix: 'bench-store-s3-approval', limits: latencyLimits, progress: () => undefined },
        );
        const approvalTurn = { turns: approved.turns.length, requestsPerTurn: perUnit(proxy.take(), approvalTurns) };
        await s3Worker.stop();
        const folder = measured.get('folder');
        const bucket = measured.get('s3');
        if (!folder || !bucket) throw new Error('a store was not measured');
        return { folder, s3: bucket, approvalTurn };
      });
    }

    const modelFailures = await model.failures();
    if (modelFailures.length > 0) progress(`the scripted model reported ${modelFailures.length} failures`);

    const report: BenchReport = {
      date: new Date().toISOString(),
      machine: {
        cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
        cores: os.cpus().length,
        memoryGiB: Math.round(os.totalmem() / 1024 ** 3),
        platform: `${os.type()} ${os.release()}`,
        node: process.versions.node,
      },
      options: { ...options, only: [...options.only] },
      baseline: figures.baseline,
      handLoop: figures.handLoop,
      ...(listsWaiting() && { handLoopListsWaiting: true }),
      tollgate: figures.tollgate,
      ...(options.modelSteps.includes('local') && { tollgateLocalSteps: figures.tollgateLocalSteps }),
      growth,
      ...(scaleOut && { scaleOut }),
      ...(storeCost && { storeCost }),
      modelFailures,
      durationMs: Date.now() - startedAt,
    };
    const file = path.join(outputFolder, `${report.date.slice(0, 19).replace(/:/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(renderText(report));
    console.log('\nFor the README:\n');
    console.log(renderMarkdown(report));
    progress(`report written to ${path.relative(process.cwd(), file)}`);
  } finally {
    progress('stopping workers and the dev server');
    await resources.close();
  }
}

/** The list started `by` places further on, so that each system goes first in turn. */
function rotated<T>(items: T[], by: number): T[] {
  const start = by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

const quietLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => progress(message),
  error: (message: string) => progress(message),
  log: () => undefined,
};

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
