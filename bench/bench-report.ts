import type { BenchOptions, DecisionChannel } from './bench-options';
import type { GrowthResult } from './measure-growth';
import type { BurstResult } from './measure-burst';
import type { HistorySize } from './history-size';
import type { StoreCost } from './measure-store-cost';
import type { RequestCounts } from './counting-proxy';
import type { DecisionTimeline, WaitPhases } from './wait-phases';
import type { BenchSystem } from './worker-messages';
import { percentile, type LatencySummary } from './stats';

/** A figure that could not be measured, and why. */
export interface FigureError {
  /** What went wrong (a time limit, a failed turn). */
  error: string;
}

/** The latency figures of one system. */
export interface LatencyFigures {
  startToRequestMs: LatencySummary;
  decisionToToolStartMs: LatencySummary;
  /** Medians, from the histories of up to 20 of these turns: what start → request is made of. */
  waitPhases?: WaitPhases & { samples: number };
  /** Medians, from the same histories and the tools' stamps: what decision → tool start is made of. */
  decisionTimeline?: DecisionTimeline & { samples: number };
}

/** The mean history of one completed turn. */
export interface HistoryFigures extends HistorySize {
  /** Turns measured. */
  samples: number;
}

/** The measured bursts of one system through one decision channel, one per round, and the rounds that failed. */
export interface BurstRounds {
  rounds: BurstResult[];
  failures: string[];
}

/** Everything measured for one system. */
export interface SystemFigures {
  latency?: LatencyFigures | FigureError;
  /** Bursts by decision channel. */
  bursts?: Partial<Record<DecisionChannel, BurstRounds>>;
  history?: HistoryFigures | FigureError;
}

/** The machine the suite ran on. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  platform: string;
  node: string;
}

/** What one `npm run bench` measured; written as JSON. */
export interface BenchReport {
  date: string;
  machine: Machine;
  options: Omit<BenchOptions, 'only'> & { only: string[] };
  baseline: SystemFigures;
  /** The hand-written agent loop (bench/hand-loop-workflow.ts); absent in reports from before 2026-11-27. */
  handLoop?: SystemFigures;
  /** The hand-written loop kept Tollgate's search attributes (`BENCH_HAND_LOOP_LISTS_WAITING=1`). */
  handLoopListsWaiting?: boolean;
  tollgate: SystemFigures;
  /** Tollgate with its turns' model steps as local activities (`modelSteps: 'local'`), when measured. */
  tollgateLocalSteps?: SystemFigures;
  growth: Array<GrowthResult | (FigureError & { steps: number })>;
  /** Bursts with one worker process per system and with two (each on task queues of their own), round by round. */
  scaleOut?: { channel: DecisionChannel; turns: number; results: ScaleOutResult[] };
  /** The content store's cost per model step: the folder store against S3 (SeaweedFS), on the same model and server. */
  storeCost?:
    | {
        folder: StoreCost;
        s3: StoreCost;
        /** S3 requests of the turn every other figure runs (one approved call), per turn; from 2026-11-27. */
        approvalTurn?: { turns: number; requestsPerTurn: RequestCounts };
      }
    | FigureError;
  /** Requests the scripted model could not answer: a non-empty list means some turn did not run as scripted. */
  modelFailures: string[];
  /** Wall time of the whole run (ms). */
  durationMs: number;
}

/** One scale-out burst: a system on one or two worker processes. */
export interface ScaleOutResult {
  system: BenchSystem;
  workers: 1 | 2;
  burst?: BurstResult;
  error?: string;
}

/** One line of the headline table: a figure of each system, and Tollgate's ratios against both baselines. */
interface Row {
  figure: string;
  baseline: string;
  handLoop: string;
  tollgate: string;
  /** Tollgate / bare Temporal. */
  ratioBare: string;
  /** Tollgate / the hand-written loop. */
  ratioHand: string;
  target: string;
}

/**
 * The targets, as ratios Tollgate / hand-written loop (issue 32), or absolute values. The hand-written loop makes the
 * same model calls, runs the same tool and waits the same way, so what is left is Tollgate's own cost.
 */
export const targets = {
  decisionToToolStartP50: 1.05,
  startToRequestUnderLoadP50: 1.05,
  burstToolsPerSecond: 1.0,
  workerCpuPerDecidedTurn: 1.05,
  residentPerTurn: 1.0,
  workflowTaskTimeouts: 0,
  eventsPerApprovedTurn: 30,
  growthHistoryBytes: 5 * 1024 * 1024,
} as const;

function ok<T extends object>(figure: T | FigureError | undefined): T | undefined {
  return figure && !('error' in figure) ? figure : undefined;
}

function errorOf(figure: object | undefined): string | undefined {
  return figure && 'error' in figure ? String((figure as FigureError).error) : undefined;
}

function milliseconds(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? '–' : `${value.toFixed(1)} ms`;
}

/** Bytes in B, KiB or MiB. */
export function bytes(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  if (Math.abs(value) >= 1024 * 1024) return `${(value / 1024 / 1024).toFixed(2)} MiB`;
  if (Math.abs(value) >= 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${Math.round(value)} B`;
}

/** `tollgate / baseline`, or undefined where either is unknown, negative or the baseline is 0. */
export function ratioOf(tollgate: number | undefined, baseline: number | undefined): number | undefined {
  if (tollgate === undefined || baseline === undefined || !Number.isFinite(tollgate) || !Number.isFinite(baseline)) {
    return undefined;
  }
  // A negative figure (memory that shrank while turns waited: too few turns to rise above the GC) has no ratio.
  if (tollgate < 0 || baseline < 0) {
    return undefined;
  }
  return baseline === 0 ? undefined : tollgate / baseline;
}

function ratioText(ratio: number | undefined): string {
  // Three decimals near the targets, so that a ratio shown as 1.05× cannot have missed ≤ 1.05×.
  return ratio === undefined ? '–' : `${ratio.toFixed(ratio < 10 ? 3 : 1)}×`;
}

function verdict(met: boolean | undefined, target: string): string {
  if (met === undefined) return target;
  return `${target} ${met ? 'met' : 'MISSED'}`;
}

/** The median of a figure over a system's measured rounds, with the lowest and highest round. */
export interface Spread {
  median: number;
  low: number;
  high: number;
}

/** Median, lowest and highest of the finite values, or undefined when there are none. */
export function spreadOf(values: ReadonlyArray<number | undefined>): Spread | undefined {
  const finite = values.filter((value): value is number => value !== undefined && Number.isFinite(value));
  if (finite.length === 0) return undefined;
  return { median: percentile(finite, 0.5), low: Math.min(...finite), high: Math.max(...finite) };
}

/** A median with its spread over rounds: `12.0 ms (11.2–13.5)`. */
function withSpread(format: (value: number | undefined) => string) {
  return (spread: Spread | undefined): string => {
    if (!spread) return '–';
    if (spread.low === spread.high) return format(spread.median);
    const bare = (value: number) => format(value).replace(/ (ms|KiB|MiB|B)$/, '');
    return `${format(spread.median)} (${bare(spread.low)}–${bare(spread.high)})`;
  };
}

type Systems<T> = { baseline: T | undefined; handLoop: T | undefined; tollgate: T | undefined };

/** A target on Tollgate / hand-written loop. */
interface Target {
  text: string;
  met: (ratioToHandLoop: number) => boolean;
}

const atMost = (limit: number): Target => ({ text: `≤ ${limit}×`, met: (ratio) => ratio <= limit });
const atLeast = (limit: number): Target => ({ text: `≥ ${limit}×`, met: (ratio) => ratio >= limit });

/** The headline rows: each figure for the three systems, and Tollgate's ratios against both baselines. */
function headlineRows(report: BenchReport): Row[] {
  const rows: Row[] = [];
  const add = (
    figure: string,
    values: Systems<number>,
    format: (value: number | undefined) => string,
    target?: Target,
  ) => {
    const ratioHand = ratioOf(values.tollgate, values.handLoop);
    rows.push({
      figure,
      baseline: format(values.baseline),
      handLoop: format(values.handLoop),
      tollgate: format(values.tollgate),
      ratioBare: ratioText(ratioOf(values.tollgate, values.baseline)),
      ratioHand: ratioText(ratioHand),
      target: target ? verdict(ratioHand === undefined ? undefined : target.met(ratioHand), target.text) : '',
    });
  };
  const note = (figure: string, cells: Partial<Row>) =>
    rows.push({
      figure,
      baseline: '',
      handLoop: '',
      tollgate: '',
      ratioBare: '',
      ratioHand: '',
      target: '',
      ...cells,
    });
  const handLoop = report.handLoop ?? {};
  const latency: Systems<LatencyFigures> = {
    baseline: ok(report.baseline.latency),
    handLoop: ok(handLoop.latency),
    tollgate: ok(report.tollgate.latency),
  };
  const each = <T, R>(systems: Systems<T>, value: (figures: T) => R | undefined): Systems<R> => ({
    baseline: systems.baseline === undefined ? undefined : value(systems.baseline),
    handLoop: systems.handLoop === undefined ? undefined : value(systems.handLoop),
    tollgate: systems.tollgate === undefined ? undefined : value(systems.tollgate),
  });

  if (report.baseline.latency || handLoop.latency || report.tollgate.latency) {
    const samples = latency.tollgate?.decisionToToolStartMs.count ?? latency.handLoop?.decisionToToolStartMs.count ?? 0;
    add(
      `decision → tool start p50 (${samples} turns, one at a time)`,
      each(latency, (figures) => figures.decisionToToolStartMs.p50),
      milliseconds,
      atMost(targets.decisionToToolStartP50),
    );
    add(
      'decision → tool start p95',
      each(latency, (figures) => figures.decisionToToolStartMs.p95),
      milliseconds,
    );
    const timeline = each(latency, (figures) => figures.decisionTimeline);
    if (timeline.tollgate) {
      const where = `(history, median of ${timeline.tollgate.samples})`;
      for (const [name, key] of [
        ['sent → its workflow task scheduled', 'untilTaskScheduledMs'],
        ['that task waits for the worker', 'taskQueuedMs'],
        ['that task runs', 'taskRunMs'],
        ['task completed → the tool begins', 'untilToolMs'],
      ] as const) {
        add(
          `  of which ${name} ${where}`,
          each(timeline, (figures) => figures[key]),
          milliseconds,
        );
      }
    }
    add(
      'start → approval request p50',
      each(latency, (figures) => figures.startToRequestMs.p50),
      milliseconds,
    );
    add(
      'start → approval request p95',
      each(latency, (figures) => figures.startToRequestMs.p95),
      milliseconds,
    );
    const phases = each(latency, (figures) => figures.waitPhases);
    if (phases.tollgate) {
      const phase = (count: number | undefined, ms: number | undefined) =>
        count === undefined || ms === undefined ? '–' : `${count} · ${ms.toFixed(1)} ms`;
      const where = `(history, median of ${phases.tollgate.samples})`;
      add(
        `start → waiting in history ${where}`,
        each(phases, (figures) => figures.untilWaitingMs),
        milliseconds,
      );
      for (const [name, count, ms] of [
        ['workflow tasks', 'workflowTasks', 'workflowTaskMs'],
        ['activities', 'activities', 'activityMs'],
      ] as const) {
        const cell = (figures: WaitPhases | undefined) => phase(figures?.[count], figures?.[ms]);
        note(`  of which ${name} (count · time) ${where}`, {
          baseline: cell(phases.baseline),
          handLoop: cell(phases.handLoop),
          tollgate: cell(phases.tollgate),
          ratioHand: ratioText(ratioOf(phases.tollgate[ms], phases.handLoop?.[ms])),
        });
      }
    }
    const failures = each(
      { baseline: report.baseline.latency, handLoop: handLoop.latency, tollgate: report.tollgate.latency },
      errorOf,
    );
    if (failures.baseline || failures.handLoop || failures.tollgate) {
      note('latency failed', {
        baseline: failures.baseline ?? '',
        handLoop: failures.handLoop ?? '',
        tollgate: failures.tollgate ?? '',
      });
    }
  }

  const turns = report.options.turns;
  const perSecond = withSpread((value) => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(0)));
  const ms = withSpread(milliseconds);
  const size = withSpread(bytes);
  const count = withSpread((value) => (value === undefined ? '–' : value.toFixed(0)));
  const mean = withSpread((value) => (value === undefined ? '–' : value.toFixed(1)));
  let memoryShown = false;
  for (const channel of report.options.decisions) {
    const bursts: Systems<BurstRounds> = {
      baseline: report.baseline.bursts?.[channel],
      handLoop: handLoop.bursts?.[channel],
      tollgate: report.tollgate.bursts?.[channel],
    };
    const local = report.tollgateLocalSteps?.bursts?.[channel];
    if (!bursts.baseline && !bursts.handLoop && !bursts.tollgate) continue;
    const rounds = bursts.tollgate?.rounds.length ?? 0;
    /** One burst figure: medians (with spread) of the three systems, and of Tollgate with local model steps. */
    const burstRow = (
      figure: string,
      value: (burst: BurstResult) => number | undefined,
      format: (spread: Spread | undefined) => string,
      target?: Target,
    ) => {
      const spreads = each(bursts, (series) => spreadOf(series.rounds.map(value)));
      const median = each(spreads, (spread) => spread.median);
      const ratioHand = ratioOf(median.tollgate, median.handLoop);
      rows.push({
        figure: `burst by ${channel}: ${figure}`,
        baseline: format(spreads.baseline),
        handLoop: format(spreads.handLoop),
        tollgate: format(spreads.tollgate),
        ratioBare: ratioText(ratioOf(median.tollgate, median.baseline)),
        ratioHand: ratioText(ratioHand),
        target: target ? verdict(ratioHand === undefined ? undefined : target.met(ratioHand), target.text) : '',
      });
      if (local) {
        const localMedian = spreadOf(local.rounds.map(value));
        rows.push({
          figure: `burst by ${channel}, local model steps: ${figure}`,
          baseline: '',
          handLoop: '',
          tollgate: format(localMedian),
          ratioBare: ratioText(ratioOf(localMedian?.median, median.baseline)),
          ratioHand: ratioText(ratioOf(localMedian?.median, median.handLoop)),
          target: '',
        });
      }
    };
    burstRow(
      `tools started/s, ${turns} waiting (median of ${rounds} rounds, lowest–highest)`,
      (burst) => burst.decisionsPerSecond,
      perSecond,
      atLeast(targets.burstToolsPerSecond),
    );
    // Each round's ratio against the hand-written loop of the same round: the rounds ran side by side.
    const eachRound = (series: BurstRounds | undefined) =>
      (bursts.handLoop?.rounds ?? [])
        .flatMap((burst, index) => {
          const ratio = ratioOf(series?.rounds[index]?.decisionsPerSecond, burst.decisionsPerSecond);
          return ratio === undefined ? [] : [ratioText(ratio)];
        })
        .join(' ') || '–';
    note(`burst by ${channel}: tools/s, each round, Tollgate / hand-written`, {
      ratioHand: eachRound(bursts.tollgate),
    });
    burstRow('turns completed/s', (burst) => burst.turnsPerSecond, perSecond);
    burstRow(
      'worker CPU per decided turn',
      (burst) => burst.workerCpuMsPerTurn,
      ms,
      atMost(targets.workerCpuPerDecidedTurn),
    );
    burstRow('Temporal server CPU per decided turn', (burst) => burst.serverCpuMsPerTurn, ms);
    burstRow(
      'worker CPU per whole turn (start to end)',
      (burst) => burst.workerCpuMsPerWholeTurn,
      ms,
      atMost(targets.workerCpuPerDecidedTurn),
    );
    burstRow('Temporal server CPU per whole turn', (burst) => burst.serverCpuMsPerWholeTurn, ms);
    burstRow(
      'decision → tool start p50',
      (burst) => burst.burstDecisionToToolStartMs.p50,
      ms,
      atMost(targets.decisionToToolStartP50),
    );
    burstRow('decision → tool start p95', (burst) => burst.burstDecisionToToolStartMs.p95, ms);
    // Where decision → tool start went, from the histories (medians per round, then over rounds).
    burstRow(
      "  of which the decision's workflow task waits for the worker",
      (burst) => burst.decisionPhases?.taskQueuedMs,
      ms,
    );
    burstRow('  of which that workflow task runs', (burst) => burst.decisionPhases?.taskRunMs, ms);
    burstRow(
      "  of which the tool's activity waits for the worker",
      (burst) => burst.decisionPhases?.activityQueuedMs,
      ms,
    );
    // Each decision's own way, on one clock (the bench's send stamp, its history, the tool's stamp): the burst's p50
    // above is counted from the burst's first decision, so it also carries the order the server hands tasks out in.
    burstRow(
      "each decision alone: sent → its tool begins (sum of its parts' medians)",
      (burst) => {
        const timeline = burst.decisionTimeline;
        return (
          timeline && timeline.untilTaskScheduledMs + timeline.taskQueuedMs + timeline.taskRunMs + timeline.untilToolMs
        );
      },
      ms,
    );
    burstRow(
      '  then keeps its place among those in progress, after its tool began',
      (burst) => burst.placeKeptAfterToolMs,
      ms,
    );
    burstRow('workflow task timeouts (in the histories read)', (burst) => burst.workflowTaskTimeouts?.timeouts, count);
    const timeouts = bursts.tollgate?.rounds.reduce(
      (sum, burst) => sum + (burst.workflowTaskTimeouts?.timeouts ?? 0),
      0,
    );
    const timeoutRow = rows[rows.length - (local ? 2 : 1)];
    if (timeouts !== undefined && timeoutRow) {
      timeoutRow.target = verdict(timeouts <= targets.workflowTaskTimeouts, `Tollgate ${targets.workflowTaskTimeouts}`);
    }
    if (!memoryShown) {
      memoryShown = true;
      burstRow(
        `start → approval request p50, ${turns} starting`,
        (burst) => burst.startToRequestUnderLoadMs.p50,
        ms,
        atMost(targets.startToRequestUnderLoadP50),
      );
      burstRow('  worker CPU per started turn (start → all waiting)', (burst) => burst.workerCpuMsPerStartedTurn, ms);
      burstRow(
        '  Temporal server CPU per started turn (start → all waiting)',
        (burst) => burst.serverCpuMsPerStartedTurn,
        ms,
      );
      burstRow('  polls per turn until it waited', (burst) => burst.pollsPerStartedTurn, mean);
      burstRow('  start → waiting in history', (burst) => burst.startPhases?.untilWaitingMs, ms);
      burstRow('  of which workflow tasks wait for the worker', (burst) => burst.startPhases?.tasksQueuedMs, ms);
      burstRow('  of which workflow tasks run', (burst) => burst.startPhases?.tasksRunMs, ms);
      burstRow('  of which activities wait for the worker', (burst) => burst.startPhases?.activitiesQueuedMs, ms);
      burstRow('  of which activities run', (burst) => burst.startPhases?.activitiesRunMs, ms);
      burstRow(
        'worker RSS per waiting turn',
        (burst) => burst.residentBytesPerWaitingTurn,
        size,
        atMost(targets.residentPerTurn),
      );
      burstRow('worker RSS, idle', (burst) => burst.residentBytesBefore, size);
      burstRow(`worker RSS, ${turns} waiting`, (burst) => burst.residentBytesWaiting, size);
    }
    for (const [name, series] of [
      ['bare Temporal', bursts.baseline],
      ['hand-written loop', bursts.handLoop],
      ['tollgate', bursts.tollgate],
      ['tollgate (local model steps)', local],
    ] as const) {
      for (const burst of (series?.rounds ?? []).filter((round) => round.toolsStarted < round.turns)) {
        note(`${name} burst by ${channel} incomplete`, {
          target: `${burst.toolsStarted}/${burst.turns} tools started`,
        });
      }
      if (series && series.failures.length > 0) {
        note(`${name} bursts by ${channel} failed`, { target: series.failures.join('; ') });
      }
    }
  }

  const history: Systems<HistoryFigures> = {
    baseline: ok(report.baseline.history),
    handLoop: ok(handLoop.history),
    tollgate: ok(report.tollgate.history),
  };
  if (report.baseline.history || handLoop.history || report.tollgate.history) {
    const whole = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(0));
    add(
      'history events per turn (one approved call)',
      each(history, (figures) => figures.events),
      whole,
      {
        text: `Tollgate ≤ ${targets.eventsPerApprovedTurn}`,
        met: () => (history.tollgate?.events ?? Infinity) <= targets.eventsPerApprovedTurn,
      },
    );
    add(
      'history bytes per turn',
      each(history, (figures) => figures.bytes),
      bytes,
    );
    add(
      'workflow tasks per turn',
      each(history, (figures) => figures.workflowTasks),
      whole,
    );
    add(
      'activities per turn',
      each(history, (figures) => figures.activities),
      whole,
    );
    add(
      'visibility writes per turn (start, search-attribute upserts, close)',
      each(history, (figures) => figures.visibilityWrites),
      whole,
    );
    const localHistory = ok(report.tollgateLocalSteps?.history);
    if (localHistory) {
      add(
        'history events per turn, model steps as local activities',
        { ...each(history, (figures) => figures.events), tollgate: localHistory.events },
        whole,
      );
      add(
        'history bytes per turn, model steps as local activities',
        { ...each(history, (figures) => figures.bytes), tollgate: localHistory.bytes },
        bytes,
      );
    }
    add(
      'largest payload per turn',
      each(history, (figures) => figures.largestPayloadBytes),
      bytes,
    );
    const failures = each(
      { baseline: report.baseline.history, handLoop: handLoop.history, tollgate: report.tollgate.history },
      errorOf,
    );
    if (failures.baseline || failures.handLoop || failures.tollgate) {
      note('history failed', {
        baseline: failures.baseline ?? '',
        handLoop: failures.handLoop ?? '',
        tollgate: failures.tollgate ?? '',
      });
    }
  }
  rows.push(...scaleOutRows(report));
  return rows;
}

/**
 * The scale-out figure, on one worker process per system and on two: turns per second (tools started, turns ended),
 * worker CPU per decided and per whole turn summed over the system's processes, the Temporal server's, turns per worker
 * CPU-second, workflow-task timeouts and worker switches (replays on the other worker), and two workers / one. Each
 * cell is the median of the rounds with the lowest and highest.
 */
function scaleOutRows(report: BenchReport): Row[] {
  const scale = report.scaleOut;
  if (!scale) return [];
  const rows: Row[] = [];
  const spreadIn = (system: BenchSystem, workers: 1 | 2, value: (burst: BurstResult) => number | undefined) =>
    spreadOf(
      scale.results.flatMap((result) =>
        result.system === system && result.workers === workers && result.burst ? [value(result.burst)] : [],
      ),
    );
  const add = (
    figure: string,
    value: (system: BenchSystem) => Spread | undefined,
    format: (value?: number) => string,
  ) => {
    const [baseline, handLoop, tollgate] = (['baseline', 'handLoop', 'tollgate'] as const).map(value);
    const cell = withSpread(format);
    rows.push({
      figure,
      baseline: cell(baseline),
      handLoop: cell(handLoop),
      tollgate: cell(tollgate),
      ratioBare: ratioText(ratioOf(tollgate?.median, baseline?.median)),
      ratioHand: ratioText(ratioOf(tollgate?.median, handLoop?.median)),
      target: '',
    });
  };
  const whole = (value?: number) => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(0));
  const cpu = (value?: number) => (value === undefined || Number.isNaN(value) ? '–' : `${value.toFixed(1)} ms`);
  const per = (burst: BurstResult, count: number | undefined) =>
    count === undefined ? undefined : count / Math.max(1, burst.workflowTaskTimeouts?.turnsRead ?? burst.turns);
  for (const workers of [1, 2] as const) {
    const label = `scale-out by ${scale.channel}, ${scale.turns} waiting, ${workers} worker process${workers === 1 ? '' : 'es'}`;
    const figure = (
      name: string,
      value: (burst: BurstResult) => number | undefined,
      format: (value?: number) => string,
    ) => add(`${label}: ${name}`, (system) => spreadIn(system, workers, value), format);
    figure('tools started/s', (burst) => burst.decisionsPerSecond, whole);
    figure('turns ended/s', (burst) => burst.turnsPerSecond, whole);
    figure('worker CPU per decided turn (all its processes)', (burst) => burst.workerCpuMsPerTurn, cpu);
    figure('worker CPU per whole turn (start → end)', (burst) => burst.workerCpuMsPerWholeTurn, cpu);
    figure('decided turns per worker CPU-second', (burst) => turnsPerCpuSecond(burst.workerCpuMsPerTurn), whole);
    figure('whole turns per worker CPU-second', (burst) => turnsPerCpuSecond(burst.workerCpuMsPerWholeTurn), whole);
    figure('Temporal server CPU per decided turn', (burst) => burst.serverCpuMsPerTurn, cpu);
    figure('Temporal server CPU per whole turn', (burst) => burst.serverCpuMsPerWholeTurn, cpu);
    figure('workflow task timeouts per round', (burst) => burst.workflowTaskTimeouts?.timeouts, whole);
    figure(
      'workflow tasks moved to the other worker, per turn',
      (burst) => per(burst, burst.workerSwitches),
      (value) => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(2)),
    );
  }
  const gain = (name: string, value: (burst: BurstResult) => number | undefined) =>
    add(
      `scale-out: ${name}, two workers / one`,
      (system) => {
        const ratio = ratioOf(spreadIn(system, 2, value)?.median, spreadIn(system, 1, value)?.median);
        return ratio === undefined ? undefined : { median: ratio, low: ratio, high: ratio };
      },
      (value) => (value === undefined ? '–' : `${value.toFixed(3)}×`),
    );
  gain('tools started/s', (burst) => burst.decisionsPerSecond);
  gain('worker CPU per whole turn', (burst) => burst.workerCpuMsPerWholeTurn);
  for (const result of scale.results.filter((entry) => entry.error !== undefined)) {
    rows.push({
      figure: `scale-out ${result.system} on ${result.workers} failed`,
      baseline: '',
      handLoop: '',
      tollgate: '',
      ratioBare: '–',
      ratioHand: '–',
      target: result.error ?? '',
    });
  }
  return rows;
}

/** Turns one worker CPU-second decides, from the CPU milliseconds one decided turn costs. */
export function turnsPerCpuSecond(cpuMsPerTurn: number | undefined): number | undefined {
  return cpuMsPerTurn === undefined || !(cpuMsPerTurn > 0) ? undefined : 1000 / cpuMsPerTurn;
}

/** The content store's table: the folder store against S3, per model step. */
function storeRows(report: BenchReport): string[][] {
  const cost = report.storeCost;
  if (!cost) return [];
  if ('error' in cost) return [['content store', `failed: ${cost.error}`, '', '']];
  const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : '–');
  const line = (figure: string, folder: number, s3: number) => [
    figure,
    ms(folder),
    ms(s3),
    ratioText(ratioOf(s3, folder)),
  ];
  const rows = [
    line(
      `wall time per model step p50 (${cost.folder.turns} turns of ${cost.folder.steps} tool calls, 32 KiB outputs)`,
      cost.folder.wallMsPerStep.p50,
      cost.s3.wallMsPerStep.p50,
    ),
    line('worker CPU per model step p50', cost.folder.workerCpuMsPerStep.p50, cost.s3.workerCpuMsPerStep.p50),
  ];
  if (cost.s3.requestsPerStep) {
    rows.push(['S3 requests per model step, by method', '–', requestsText(cost.s3.requestsPerStep), '']);
  }
  if (cost.approvalTurn) {
    rows.push([
      `S3 requests per turn with one approved call (${cost.approvalTurn.turns} turns)`,
      '–',
      requestsText(cost.approvalTurn.requestsPerTurn),
      '',
    ]);
  }
  for (const [name, side] of [
    ['folder', cost.folder],
    ['S3', cost.s3],
  ] as const) {
    if (side.failures.length > 0) rows.push([`${name} turns failed`, side.failures.join('; '), '', '']);
  }
  return rows;
}

/** `PUT 2.0 · GET 1.1`, or `none`. */
export function requestsText(counts: RequestCounts): string {
  const entries = Object.entries(counts).filter(([, count]) => count > 0);
  if (entries.length === 0) return 'none';
  return entries
    .sort(([first], [second]) => first.localeCompare(second))
    .map(([method, count]) => `${method} ${count.toFixed(count >= 10 ? 0 : 2)}`)
    .join(' · ');
}

const storeHeader = ['figure', 'folder store', 'S3 store (SeaweedFS)', 'ratio S3 / folder'];

const headlineHeader: Row = {
  figure: 'figure',
  baseline: 'bare Temporal',
  handLoop: 'hand-written loop',
  tollgate: 'Tollgate',
  ratioBare: 'Tollgate / bare',
  ratioHand: 'Tollgate / hand-written',
  target: 'target (vs hand-written)',
};

function growthRows(report: BenchReport): string[][] {
  return report.growth.map((growth) => {
    if ('error' in growth) return [String(growth.steps), `failed: ${growth.error}`, '', '', '', '', '', '', '', ''];
    const underLimit = growth.historyBytes < targets.growthHistoryBytes;
    return [
      String(growth.steps),
      growth.outcome,
      String(growth.toolRuns),
      String(growth.historyEvents),
      bytes(growth.historyBytes),
      bytes(growth.historyBytes / Math.max(1, growth.toolRuns)),
      `${bytes(growth.largestPayloadBytes)} (${growth.largestPayloadEvent || '–'})`,
      bytes(growth.storeBytes),
      `${(growth.wallMs / 1000).toFixed(1)} s`,
      growth.completed && underLimit ? 'completes, < 5 MiB: met' : 'completes, < 5 MiB: MISSED',
    ];
  });
}

const growthHeader = [
  'steps',
  'outcome',
  'tool runs',
  'events',
  'history',
  'history per step',
  'largest payload (event)',
  'outside history',
  'wall time',
  'target',
];

function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

function markdownTable(header: string[], rows: string[][]): string {
  const escape = (cell: string) => cell.replace(/\|/g, '\\|');
  const line = (cells: string[]) => `| ${cells.map(escape).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function rowCells(row: Row): string[] {
  return [row.figure, row.baseline, row.handLoop, row.tollgate, row.ratioBare, row.ratioHand, row.target];
}

function machineLine(report: BenchReport): string {
  const { machine } = report;
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}`;
}

/** The tables for a terminal. */
export function renderText(report: BenchReport): string {
  const parts = [
    `Tollgate vs a hand-written agent loop and bare Temporal — ${report.date} — ${machineLine(report)}`,
    '',
  ];
  const rows = headlineRows(report);
  if (rows.length > 0) parts.push(textTable(rowCells(headlineHeader), rows.map(rowCells)), '');
  if (report.growth.length > 0)
    parts.push('Long turns (32 KiB per tool output):', textTable(growthHeader, growthRows(report)), '');
  if (report.storeCost) parts.push('Content store, per model step:', textTable(storeHeader, storeRows(report)), '');
  parts.push(
    'Tollgate / bare = against a workflow that waits for the decision and runs one activity; Tollgate / hand-written = ' +
      'against an agent loop written by hand on Temporal (the same model calls, tool and wait). Targets are on the latter.',
  );
  parts.push(`Run took ${(report.durationMs / 1000).toFixed(0)} s.`);
  if (report.modelFailures.length > 0) {
    parts.push(`The scripted model failed ${report.modelFailures.length} requests, first: ${report.modelFailures[0]}`);
  }
  return parts.join('\n');
}

/** The same tables in Markdown, ready for the README. */
export function renderMarkdown(report: BenchReport): string {
  const parts = [
    `Measured ${report.date.slice(0, 10)} on ${machineLine(report)}; one Temporal dev server, ` +
      `${report.options.turns} waiting turns, every worker with maxCachedWorkflows ${report.options.maxCachedWorkflows}; ` +
      `decisions of a burst sent back to back, at most ${report.options.inFlight} in progress (sent, tool not started) at once; ` +
      `each burst measured ${report.options.rounds} times per system after one unmeasured warm-up burst each, the systems ` +
      'taking turns to go first, medians shown; all systems decided the same way in each row (signal: ' +
      "Tollgate's toolApprovalResponse signal; update: TollgateClient.decide, what the gateway uses). " +
      (report.tollgateLocalSteps
        ? "Tollgate's turns run their model steps as activities (the default) except in the rows that say " +
          "local activities (turns started with modelSteps: 'local', on the same worker). "
        : '') +
      'Tollgate / bare: against a workflow that waits for that decision, then runs one activity. Tollgate / hand-written: ' +
      'against an agent loop written by hand on Temporal from its samples (an activity calls the model with the openai ' +
      'client, not streamed; the workflow waits for a signal or update keyed by approval id; an activity runs the tool; ' +
      'an activity calls the model again), with the same model replies, tool and wait' +
      (report.handLoopListsWaiting
        ? "; in this run the hand-written loop also keeps Tollgate's search attributes (its waiting approval ids, their " +
          'tools and approvers, upserted when it waits and cleared when it ends; BENCH_HAND_LOOP_LISTS_WAITING=1)'
        : '') +
      '. Burst cells: median of the ' +
      'rounds (lowest–highest). Targets are on Tollgate / hand-written.',
    '',
  ];
  const rows = headlineRows(report);
  if (rows.length > 0) parts.push(markdownTable(rowCells(headlineHeader), rows.map(rowCells)), '');
  if (report.growth.length > 0) parts.push(markdownTable(growthHeader, growthRows(report)), '');
  if (report.storeCost) parts.push(markdownTable(storeHeader, storeRows(report)), '');
  return parts.join('\n');
}
