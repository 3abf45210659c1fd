// Counts what one decision costs the turn's workflow code, Tollgate beside the hand-written loop: the promises the
// workflow creates and the commands it issues from the decision's update arriving until the tool's activity is
// scheduled. A counting run, not a timing one (every promise's stack is captured). Run it on its own:
//
//   node --require ./bench/count-decision-promises-hook.cjs --import tsx bench/count-decision-promises.ts [turns]
//
// It starts its own dev server, scripted model and both workers in this process, runs the turns one at a time, and
// prints per system the median promises and commands per decision, and the frames that created the promises; then the
// same for the workflow task that opens the approval (the first after the first model step's activity completed).
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TollgateClient } from '../src/client';
import { startDevServer } from '../src/dev/dev-server';
import { startModelServer } from '../src/dev/model-server';
import { tollgateSearchAttributes } from '../src/dev/search-attributes';
import { quietBundlerLogger } from '../src/workflow-bundle-cache';
import { contentStoreFromEnvironment } from '../src/store';
import { createTollgateWorker, tollgateWorkflowBundleOptions } from '../src/worker';
import type { ApprovalSystem } from './approval-system';
import { createBenchTools } from './bench-tools';
import type { BenchWorkers } from './bench-workers';
import { createHandLoopActivities } from './hand-loop-activities';
import { HandLoopSystem } from './hand-loop-system';
import { runTimedTurn } from './measure-latency';
import { TollgateSystem } from './tollgate-system';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The promise hook's records, kept by each workflow thread (count-decision-promises-hook.cjs). */
interface PromiseRecords {
  /** Per workflow id and history length at the activation's start, the promises created. */
  counts: Map<string, Map<number, number>>;
  /** Per workflow id and history length, the creating frames and how many promises each made. */
  sites: Map<string, Map<number, Map<string, number>>>;
}

const recordsKey = '__tollgateDecisionPromiseRecords__';

/** A worker that tells which turn's tool started, as the bench's worker processes do. */
class ToolStarts implements BenchWorkers {
  readonly pids = [process.pid];
  private readonly waiters = new Map<string, (at: number) => void>();
  readonly started = new Map<string, number>();

  report = (turn: string): void => {
    this.started.set(turn, Date.now());
    this.waiters.get(turn)?.(Date.now());
  };

  toolStarted(turn: string, timeoutMs: number): Promise<number> {
    const known = this.started.get(turn);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no tool start for ${turn}`)), timeoutMs);
      this.waiters.set(turn, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  toolStartCount(turn: string): number {
    return this.started.has(turn) ? 1 : 0;
  }

  residentBytes(): Promise<number> {
    return Promise.resolve(0);
  }
}

/** What one decision cost, read from the turn's history and the promise hook's records. */
interface DecisionCost {
  workflowTasks: number;
  promises: number;
  commands: string[];
  sites: Map<string, number>;
  wholeTurn: number;
  byActivation: string;
  /** The workflow task that opens the approval: the first one after the first model step's activity completed. */
  request: { promises: number; sites: Map<string, number> };
}

function decisionCost(events: HistoryEvent[], toolActivity: string, records: PromiseRecords, workflowId: string) {
  const typeName = (event: HistoryEvent) =>
    temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType);
  const accepted = events.find((event) => event.workflowExecutionUpdateAcceptedEventAttributes);
  const scheduled = events.find(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === toolActivity,
  );
  if (!accepted || !scheduled) throw new Error(`${workflowId}: no accepted update or no ${toolActivity} activity`);
  // The workflow tasks from the one that accepted the update to the one that scheduled the tool.
  const completedBefore = (id: number) =>
    [...events].reverse().find((event) => Number(event.eventId) < id && event.workflowTaskCompletedEventAttributes);
  const firstCompleted = completedBefore(Number(accepted.eventId));
  const lastCompletedId = Number(scheduled.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId);
  if (!firstCompleted) throw new Error(`${workflowId}: no workflow task before the update`);
  const tasks = events.filter(
    (event) =>
      event.workflowTaskCompletedEventAttributes &&
      Number(event.eventId) >= Number(firstCompleted.eventId) &&
      Number(event.eventId) <= lastCompletedId,
  );
  const byHistoryLength = [...(records.counts.get(workflowId) ?? [])].sort((a, b) => a[0] - b[0]);
  const modelStepDone = events.find((event) => event.activityTaskCompletedEventAttributes);
  const requestStarted = events.find(
    (event) => Number(event.eventId) > Number(modelStepDone?.eventId) && event.workflowTaskStartedEventAttributes,
  );
  if (!requestStarted) throw new Error(`${workflowId}: no workflow task after the first model step`);
  const requestLength = Number(requestStarted.eventId);
  const cost: DecisionCost = {
    workflowTasks: tasks.length,
    promises: 0,
    commands: [],
    sites: new Map(),
    wholeTurn: byHistoryLength.reduce((sum, [, count]) => sum + count, 0),
    byActivation: byHistoryLength.map(([length, count]) => `h${length}:${count}`).join(' '),
    request: {
      promises: records.counts.get(workflowId)?.get(requestLength) ?? 0,
      sites: records.sites.get(workflowId)?.get(requestLength) ?? new Map(),
    },
  };
  for (const task of tasks) {
    const startedId = Number(task.workflowTaskCompletedEventAttributes?.startedEventId);
    cost.promises += records.counts.get(workflowId)?.get(startedId) ?? 0;
    for (const [site, count] of records.sites.get(workflowId)?.get(startedId) ?? []) {
      cost.sites.set(site, (cost.sites.get(site) ?? 0) + count);
    }
    // The commands of that task: the events it recorded (each names the task that completed it).
    for (const event of events) {
      const attributes = Object.values(event).find(
        (value): value is { workflowTaskCompletedEventId?: unknown } =>
          typeof value === 'object' && value !== null && 'workflowTaskCompletedEventId' in value,
      );
      if (attributes && Number(attributes.workflowTaskCompletedEventId) === Number(task.eventId)) {
        cost.commands.push(typeName(event).replace(/^EVENT_TYPE_/, ''));
      }
    }
  }
  return cost;
}

/** Prints the frames that created promises, with how many each created per turn (the mean over `perTurn`). */
function printSites(perTurn: Array<Map<string, number>>): void {
  const sites = new Map<string, number>();
  for (const turn of perTurn) for (const [site, count] of turn) sites.set(site, (sites.get(site) ?? 0) + count);
  for (const [site, count] of [...sites].sort((a, b) => b[1] - a[1])) {
    console.log(`${(count / perTurn.length).toFixed(1).padStart(6)}  ${site}`);
  }
}

async function main(): Promise<void> {
  const turns = Number(process.argv[2] ?? 5);
  const records = (globalThis as Record<string, unknown>)[recordsKey] as PromiseRecords | undefined;
  if (!records) throw new Error('run with --require ./bench/count-decision-promises-hook.cjs');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const storeFolder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-count-'));
  process.env.TOLLGATE_STORE_DIR = storeFolder;
  const [server, tollgateBundle, handLoopBundle] = await Promise.all([
    startDevServer({ searchAttributes: tollgateSearchAttributes }),
    bundleWorkflowCode({ ...tollgateWorkflowBundleOptions(), logger: quietBundlerLogger }),
    bundleWorkflowCode({ workflowsPath: require.resolve('./hand-loop-workflow'), logger: quietBundlerLogger }),
  ]);
  const model = await startModelServer();
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const toolStarts = { tollgate: new ToolStarts(), handLoop: new ToolStarts() };
  const settings = { baseURL: model.baseURL, apiKey: 'bench', model: 'tollgate-scripted' };
  const workers = [
    await createTollgateWorker({
      acceptUnsignedDecisions: true,
      connection: nativeConnection,
      taskQueue: 'count-tollgate',
      tools: createBenchTools(toolStarts.tollgate.report),
      model: settings,
      workflowBundle: { code: tollgateBundle.code },
      store: contentStoreFromEnvironment(),
    }),
    await Worker.create({
      connection: nativeConnection,
      taskQueue: 'count-hand-loop',
      workflowBundle: { code: handLoopBundle.code },
      activities: createHandLoopActivities(settings, toolStarts.handLoop.report),
    }),
  ];
  const running = workers.map((worker) => worker.run());
  try {
    const tollgate = new TollgateClient(client, 'count-tollgate', undefined, contentStoreFromEnvironment());
    const systems: Array<[ApprovalSystem, string]> = [
      [new HandLoopSystem(client, model, 'count-hand-loop', toolStarts.handLoop, 'update'), 'runTool'],
      [new TollgateSystem(tollgate, model, toolStarts.tollgate, 'update'), ''],
    ];
    for (const [system, knownToolActivity] of systems) {
      const costs: DecisionCost[] = [];
      for (let index = 0; index < turns + 1; index++) {
        const { turn } = await runTimedTurn(system, `count-${system.key}-${index}-${Date.now()}`, {
          pollMs: 20,
          stepTimeoutMs: 30_000,
        });
        const events = (await system.handle(turn).fetchHistory()).events ?? [];
        // The workflow threads send their counts every 100 ms.
        await new Promise((resolve) => setTimeout(resolve, 300));
        // Tollgate's tool activity: the first activity scheduled after the update was accepted.
        const acceptedAt = Number(
          events.find((event) => event.workflowExecutionUpdateAcceptedEventAttributes)?.eventId,
        );
        const toolActivity =
          knownToolActivity ||
          String(
            events.find((event) => Number(event.eventId) > acceptedAt && event.activityTaskScheduledEventAttributes)
              ?.activityTaskScheduledEventAttributes?.activityType?.name,
          );
        // The first turn warms the worker up (module loading, the context's first workflow): not counted.
        if (index > 0) costs.push(decisionCost(events, toolActivity, records, turn.workflowId));
        // With --every-activation, the last turn's promises by workflow task and the frames that created them.
        if (index === turns && process.argv.includes('--every-activation')) {
          const name = (event: (typeof events)[number]) =>
            (temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? '').replace(/^EVENT_TYPE_/, '');
          console.log(
            `-- ${system.label}, history: ${events.map((event) => `${event.eventId} ${name(event)}`).join(', ')}`,
          );
          for (const [length, sites] of [...(records.sites.get(turn.workflowId) ?? [])].sort((a, b) => a[0] - b[0])) {
            console.log(`-- ${system.label}, workflow task started at event ${length}`);
            for (const [site, count] of sites) console.log(`${String(count).padStart(4)}  ${site}`);
          }
        }
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      console.log(`\n== ${system.label}: ${turns} decisions`);
      console.log(
        `promises per decision: ${costs.map((cost) => cost.promises).join(', ')} (median ${median(costs.map((cost) => cost.promises))})`,
      );
      console.log(`workflow tasks per decision: ${median(costs.map((cost) => cost.workflowTasks))}`);
      console.log(`commands of one decision: ${costs[0]?.commands.join(', ')}`);
      const wholeTurns = costs.map((cost) => cost.wholeTurn);
      console.log(`promises per whole turn: ${wholeTurns.join(', ')}; by activation: ${costs[0]?.byActivation}`);
      printSites(costs.map((cost) => cost.sites));
      const requests = costs.map((cost) => cost.request.promises);
      console.log(
        `promises in the workflow task that opens the approval: ${requests.join(', ')} (median ${median(requests)})`,
      );
      printSites(costs.map((cost) => cost.request.sites));
    }
  } finally {
    for (const worker of workers) worker.shutdown();
    await Promise.allSettled(running);
    await nativeConnection.close();
    await connection.close();
    await model.close();
    await server.stop();
    rmSync(storeFolder, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
