import type { BenchOptions, DecisionChannel } from './bench-options';
import type { GrowthResult } from './measure-growth';
import type { BurstResult } from './measure-burst';
import type { HistorySize } from './history-size';
import type { StoreCost } from './measure-store-cost';
import type { WaitPhases } from './wait-phases';
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
  tollgate: SystemFigures;
  /** Tollgate with its turns' model steps as local activities (`modelSteps: 'local'`), when measured. */
  tollgateLocalSteps?: SystemFigures;
  growth: Array<GrowthResult | (FigureError & { steps: number })>;
  /** Bursts with one worker process per system and with two (each on task queues of their own), round by round. */
  scaleOut?: { channel: DecisionChannel; turns: number; results: ScaleOutResult[] };
  /** The content store's cost per model step: the folder store against S3 (SeaweedFS), on the same model and server. */
  storeCost?: { folder: StoreCost; s3: StoreCost } | FigureError;
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

/** One line of the headline table. */
interface Row {
  figure: string;
  baseline: string;
  tollgate: string;
  ratio: string;
  target: string;
}

/** The targets of issues 9 and 23, as ratios Tollgate / baseline (or absolute values). */
const targets = {
  decisionToToolStartP50: 1.2,
  startToRequestP50: 1.3,
  burstThroughput: 0.95,
  workerCpuPerDecidedTurn: 1.2,
  residentPerTurn: 1.5,
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

function ratioOf(tollgate: number | undefined, baseline: number | undefined): number | undefined {
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
  // Three decimals near the targets, so that a ratio shown as 0.80× cannot have missed ≥ 0.8×.
  return ratio === undefined ? '–' : `${ratio.toFixed(ratio < 10 ? 3 : 1)}×`;
}

function verdict(met: boolean | undefined, target: string): string {
  if (met === undefined) return target;
  return `${target} ${met ? 'met' : 'MISSED'}`;
}

/** The headline rows: each figure for both systems and the ratio. */
function headlineRows(report: BenchReport): Row[] {
  const rows: Row[] = [];
  const pair = (
    figure: string,
    baseline: number | undefined,
    tollgate: number | undefined,
    format: (value: number | undefined) => string,
    target?: { text: string; met: (ratio: number) => boolean },
  ) => {
    const ratio = ratioOf(tollgate, baseline);
    rows.push({
      figure,
      baseline: format(baseline),
      tollgate: format(tollgate),
      ratio: ratioText(ratio),
      target: target ? verdict(ratio === undefined ? undefined : target.met(ratio), target.text) : '',
    });
  };
  const failed = (figure: string, baselineError: string | undefined, tollgateError: string | undefined) =>
    rows.push({
      figure,
      baseline: baselineError ? `failed: ${baselineError}` : '',
      tollgate: tollgateError ? `failed: ${tollgateError}` : '',
      ratio: '–',
      target: '',
    });

  const [baseLatency, tollLatency] = [ok(report.baseline.latency), ok(report.tollgate.latency)];
  if (report.baseline.latency || report.tollgate.latency) {
    const samples = baseLatency?.decisionToToolStartMs.count ?? tollLatency?.decisionToToolStartMs.count ?? 0;
    pair(
      `decision → tool start p50 (${samples} turns, one at a time)`,
      baseLatency?.decisionToToolStartMs.p50,
      tollLatency?.decisionToToolStartMs.p50,
      milliseconds,
      { text: `≤ ${targets.decisionToToolStartP50}×`, met: (ratio) => ratio <= targets.decisionToToolStartP50 },
    );
    pair(
      'decision → tool start p95',
      baseLatency?.decisionToToolStartMs.p95,
      tollLatency?.decisionToToolStartMs.p95,
      milliseconds,
    );
    pair(
      'start → approval request p50',
      baseLatency?.startToRequestMs.p50,
      tollLatency?.startToRequestMs.p50,
      milliseconds,
      { text: `≤ ${targets.startToRequestP50}×`, met: (ratio) => ratio <= targets.startToRequestP50 },
    );
    pair(
      'start → approval request p95',
      baseLatency?.startToRequestMs.p95,
      tollLatency?.startToRequestMs.p95,
      milliseconds,
    );
    const [basePhases, tollPhases] = [baseLatency?.waitPhases, tollLatency?.waitPhases];
    if (basePhases && tollPhases) {
      const phase = (count: number, ms: number) => `${count} · ${ms.toFixed(1)} ms`;
      const where = `(history, median of ${Math.min(basePhases.samples, tollPhases.samples)})`;
      pair(`start → waiting in history ${where}`, basePhases.untilWaitingMs, tollPhases.untilWaitingMs, milliseconds);
      rows.push({
        figure: `  of which workflow tasks (count · time) ${where}`,
        baseline: phase(basePhases.workflowTasks, basePhases.workflowTaskMs),
        tollgate: phase(tollPhases.workflowTasks, tollPhases.workflowTaskMs),
        ratio: ratioText(ratioOf(tollPhases.workflowTaskMs, basePhases.workflowTaskMs)),
        target: '',
      });
      rows.push({
        figure: `  of which activities (count · time) ${where}`,
        baseline: phase(basePhases.activities, basePhases.activityMs),
        tollgate: phase(tollPhases.activities, tollPhases.activityMs),
        ratio: '–',
        target: '',
      });
    }
    if (!baseLatency || !tollLatency)
      failed('latency', errorOf(report.baseline.latency), errorOf(report.tollgate.latency));
  }

  const turns = report.options.turns;
  const decimal = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(0));
  let memoryShown = false;
  for (const channel of report.options.decisions) {
    const [base, toll] = [report.baseline.bursts?.[channel], report.tollgate.bursts?.[channel]];
    if (!base && !toll) continue;
    const median = (series: BurstRounds | undefined, value: (burst: BurstResult) => number) =>
      series && series.rounds.length > 0 ? percentile(series.rounds.map(value), 0.5) : undefined;
    const rounds = Math.max(base?.rounds.length ?? 0, toll?.rounds.length ?? 0);
    pair(
      `burst throughput by ${channel}, ${turns} waiting (decisions/s, median of ${rounds})`,
      median(base, (burst) => burst.decisionsPerSecond),
      median(toll, (burst) => burst.decisionsPerSecond),
      decimal,
      { text: `≥ ${targets.burstThroughput}×`, met: (ratio) => ratio >= targets.burstThroughput },
    );
    const eachRound = (series: BurstRounds | undefined, figure: string) => {
      const paired = (base?.rounds ?? []).flatMap((burst, index) => {
        const ratio = ratioOf(series?.rounds[index]?.decisionsPerSecond, burst.decisionsPerSecond);
        return ratio === undefined ? [] : [ratioText(ratio)];
      });
      rows.push({ figure, baseline: '', tollgate: '', ratio: paired.join(' ') || '–', target: '' });
    };
    eachRound(toll, `burst by ${channel}: each round, Tollgate / baseline`);
    const local = report.tollgateLocalSteps?.bursts?.[channel];
    if (local) {
      pair(
        `burst throughput by ${channel}, model steps as local activities (median of ${local.rounds.length})`,
        median(base, (burst) => burst.decisionsPerSecond),
        median(local, (burst) => burst.decisionsPerSecond),
        decimal,
        { text: `≥ ${targets.burstThroughput}×`, met: (ratio) => ratio >= targets.burstThroughput },
      );
      eachRound(local, `burst by ${channel}, local model steps: each round, Tollgate / baseline`);
    }
    const cpuMs = (value: number | undefined) =>
      value === undefined || Number.isNaN(value) ? '–' : `${value.toFixed(1)} ms`;
    for (const [figure, value] of [
      ['dev server CPU per decided turn', (burst: BurstResult) => burst.serverCpuMsPerTurn ?? NaN],
      ['worker CPU per decided turn', (burst: BurstResult) => burst.workerCpuMsPerTurn ?? NaN],
    ] as const) {
      const target =
        figure === 'worker CPU per decided turn'
          ? {
              text: `≤ ${targets.workerCpuPerDecidedTurn}×`,
              met: (ratio: number) => ratio <= targets.workerCpuPerDecidedTurn,
            }
          : undefined;
      pair(`burst by ${channel}: ${figure}`, median(base, value), median(toll, value), cpuMs, target);
      if (local)
        pair(`burst by ${channel}, local model steps: ${figure}`, median(base, value), median(local, value), cpuMs);
    }
    pair(
      `burst by ${channel}: decision → tool start p50`,
      median(base, (burst) => burst.burstDecisionToToolStartMs.p50),
      median(toll, (burst) => burst.burstDecisionToToolStartMs.p50),
      milliseconds,
    );
    pair(
      `burst by ${channel}: decision → tool start p95`,
      median(base, (burst) => burst.burstDecisionToToolStartMs.p95),
      median(toll, (burst) => burst.burstDecisionToToolStartMs.p95),
      milliseconds,
    );
    if (!memoryShown) {
      memoryShown = true;
      pair(
        `start → approval request p50, ${turns} starting`,
        median(base, (burst) => burst.startToRequestUnderLoadMs.p50),
        median(toll, (burst) => burst.startToRequestUnderLoadMs.p50),
        milliseconds,
      );
      pair(
        'worker RSS per waiting turn',
        median(base, (burst) => burst.residentBytesPerWaitingTurn),
        median(toll, (burst) => burst.residentBytesPerWaitingTurn),
        bytes,
        { text: `≤ ${targets.residentPerTurn}×`, met: (ratio) => ratio <= targets.residentPerTurn },
      );
      pair(
        'worker RSS, idle',
        median(base, (burst) => burst.residentBytesBefore),
        median(toll, (burst) => burst.residentBytesBefore),
        bytes,
      );
      pair(
        `worker RSS, ${turns} waiting`,
        median(base, (burst) => burst.residentBytesWaiting),
        median(toll, (burst) => burst.residentBytesWaiting),
        bytes,
      );
    }
    for (const [name, series] of [
      ['baseline', base],
      ['tollgate', toll],
      ['tollgate (local model steps)', local],
    ] as const) {
      const incomplete = (series?.rounds ?? []).filter((burst) => burst.toolsStarted < burst.turns);
      for (const burst of incomplete) {
        rows.push({
          figure: `${name} burst by ${channel} incomplete`,
          baseline: '',
          tollgate: '',
          ratio: '',
          target: `${burst.toolsStarted}/${burst.turns} tools started`,
        });
      }
      if (series && series.failures.length > 0) {
        rows.push({
          figure: `${name} bursts by ${channel} failed`,
          baseline: name === 'baseline' ? `failed: ${series.failures.join('; ')}` : '',
          tollgate: name === 'baseline' ? '' : `failed: ${series.failures.join('; ')}`,
          ratio: '–',
          target: '',
        });
      }
    }
  }

  const [baseHistory, tollHistory] = [ok(report.baseline.history), ok(report.tollgate.history)];
  if (report.baseline.history || report.tollgate.history) {
    pair(
      'history events per turn (one approved call)',
      baseHistory?.events,
      tollHistory?.events,
      (value) => (value === undefined ? '–' : value.toFixed(0)),
      {
        text: `Tollgate ≤ ${targets.eventsPerApprovedTurn}`,
        met: () => (tollHistory?.events ?? Infinity) <= targets.eventsPerApprovedTurn,
      },
    );
    pair('history bytes per turn', baseHistory?.bytes, tollHistory?.bytes, bytes);
    const localHistory = ok(report.tollgateLocalSteps?.history);
    if (localHistory) {
      pair(
        'history events per turn, model steps as local activities',
        baseHistory?.events,
        localHistory.events,
        (value) => (value === undefined ? '–' : value.toFixed(0)),
      );
      pair('history bytes per turn, model steps as local activities', baseHistory?.bytes, localHistory.bytes, bytes);
    }
    pair('largest payload per turn', baseHistory?.largestPayloadBytes, tollHistory?.largestPayloadBytes, bytes);
    if (!baseHistory || !tollHistory)
      failed('history', errorOf(report.baseline.history), errorOf(report.tollgate.history));
  }
  rows.push(...scaleOutRows(report));
  return rows;
}

/** Decided turns per second and worker CPU per decided turn, on one worker process per system and on two. */
function scaleOutRows(report: BenchReport): Row[] {
  const scale = report.scaleOut;
  if (!scale) return [];
  const rows: Row[] = [];
  const medianOf = (system: BenchSystem, workers: 1 | 2, value: (burst: BurstResult) => number | undefined) => {
    const values = scale.results.flatMap((result) => {
      const figure = result.system === system && result.workers === workers && result.burst && value(result.burst);
      return typeof figure === 'number' && Number.isFinite(figure) ? [figure] : [];
    });
    return values.length > 0 ? percentile(values, 0.5) : undefined;
  };
  const add = (
    figure: string,
    baseline: number | undefined,
    tollgate: number | undefined,
    format: (value?: number) => string,
  ) =>
    rows.push({
      figure,
      baseline: format(baseline),
      tollgate: format(tollgate),
      ratio: ratioText(ratioOf(tollgate, baseline)),
      target: '',
    });
  const perSecond = (value?: number) => (value === undefined ? '–' : value.toFixed(0));
  const cpu = (value?: number) => (value === undefined ? '–' : `${value.toFixed(1)} ms`);
  const times = (value?: number) => ratioText(value);
  for (const workers of [1, 2] as const) {
    const label = `scale-out by ${scale.channel}, ${scale.turns} waiting, ${workers} worker process${workers === 1 ? '' : 'es'} per system`;
    add(
      `${label}: decided turns/s`,
      medianOf('baseline', workers, (burst) => burst.decisionsPerSecond),
      medianOf('tollgate', workers, (burst) => burst.decisionsPerSecond),
      perSecond,
    );
    add(
      `${label}: worker CPU per decided turn (all its processes)`,
      medianOf('baseline', workers, (burst) => burst.workerCpuMsPerTurn),
      medianOf('tollgate', workers, (burst) => burst.workerCpuMsPerTurn),
      cpu,
    );
  }
  const gain = (system: BenchSystem) =>
    ratioOf(
      medianOf(system, 2, (burst) => burst.decisionsPerSecond),
      medianOf(system, 1, (burst) => burst.decisionsPerSecond),
    );
  add('scale-out: decided turns/s, two workers / one', gain('baseline'), gain('tollgate'), times);
  for (const result of scale.results.filter((entry) => entry.error !== undefined)) {
    rows.push({
      figure: `scale-out ${result.system} on ${result.workers} failed`,
      baseline: '',
      tollgate: '',
      ratio: '–',
      target: result.error ?? '',
    });
  }
  return rows;
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
  for (const [name, side] of [
    ['folder', cost.folder],
    ['S3', cost.s3],
  ] as const) {
    if (side.failures.length > 0) rows.push([`${name} turns failed`, side.failures.join('; '), '', '']);
  }
  return rows;
}

const storeHeader = ['figure', 'folder store', 'S3 store (SeaweedFS)', 'ratio S3 / folder'];

const headlineHeader: Row = {
  figure: 'figure',
  baseline: 'bare Temporal',
  tollgate: 'Tollgate',
  ratio: 'ratio',
  target: 'target',
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
  return [row.figure, row.baseline, row.tollgate, row.ratio, row.target];
}

function machineLine(report: BenchReport): string {
  const { machine } = report;
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}`;
}

/** The tables for a terminal. */
export function renderText(report: BenchReport): string {
  const parts = [`Tollgate vs bare Temporal — ${report.date} — ${machineLine(report)}`, ''];
  const rows = headlineRows(report);
  if (rows.length > 0) parts.push(textTable(rowCells(headlineHeader), rows.map(rowCells)), '');
  if (report.growth.length > 0)
    parts.push('Long turns (32 KiB per tool output):', textTable(growthHeader, growthRows(report)), '');
  if (report.storeCost) parts.push('Content store, per model step:', textTable(storeHeader, storeRows(report)), '');
  parts.push(`Ratio = Tollgate / bare Temporal. Run took ${(report.durationMs / 1000).toFixed(0)} s.`);
  if (report.modelFailures.length > 0) {
    parts.push(`The scripted model failed ${report.modelFailures.length} requests, first: ${report.modelFailures[0]}`);
  }
  return parts.join('\n');
}

/** The same tables in Markdown, ready for the README. */
export function renderMarkdown(report: BenchReport): string {
  const parts = [
    `Measured ${report.date.slice(0, 10)} on ${machineLine(report)}; one Temporal dev server, ` +
      `${report.options.turns} waiting turns, both workers with maxCachedWorkflows ${report.options.maxCachedWorkflows}; ` +
      `decisions of a burst sent back to back, at most ${report.options.inFlight} in progress (sent, tool not started) at once; ` +
      `each burst measured ${report.options.rounds} times per system after one unmeasured warm-up burst each, the systems ` +
      'taking turns to go first, medians shown; all systems decided the same way in each row (signal: ' +
      "Tollgate's toolApprovalResponse signal; update: TollgateClient.decide, what the gateway uses). " +
      (report.tollgateLocalSteps
        ? "Tollgate's turns run their model steps as activities (the default) except in the rows that say " +
          "local activities (turns started with modelSteps: 'local', on the same worker). "
        : '') +
      'Ratio = Tollgate / bare Temporal (a workflow that waits for that decision, then runs one activity).',
    '',
  ];
  const rows = headlineRows(report);
  if (rows.length > 0) parts.push(markdownTable(rowCells(headlineHeader), rows.map(rowCells)), '');
  if (report.growth.length > 0) parts.push(markdownTable(growthHeader, growthRows(report)), '');
  if (report.storeCost) parts.push(markdownTable(storeHeader, storeRows(report)), '');
  return parts.join('\n');
}
