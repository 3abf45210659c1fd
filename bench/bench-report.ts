import type { BenchOptions } from './bench-options';
import type { GrowthResult } from './measure-growth';
import type { BurstResult } from './measure-burst';
import type { HistorySize } from './history-size';
import type { LatencySummary } from './stats';

/** A figure that could not be measured, and why. */
export interface FigureError {
  /** What went wrong (a time limit, a failed turn). */
  error: string;
}

/** The latency figures of one system. */
export interface LatencyFigures {
  startToRequestMs: LatencySummary;
  decisionToToolStartMs: LatencySummary;
}

/** The mean history of one completed turn. */
export interface HistoryFigures extends HistorySize {
  /** Turns measured. */
  samples: number;
}

/** Everything measured for one system. */
export interface SystemFigures {
  latency?: LatencyFigures | FigureError;
  burst?: BurstResult | FigureError;
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
  growth: Array<GrowthResult | (FigureError & { steps: number })>;
  /** Requests the scripted model could not answer: a non-empty list means some turn did not run as scripted. */
  modelFailures: string[];
  /** Wall time of the whole run (ms). */
  durationMs: number;
}

/** One line of the headline table. */
interface Row {
  figure: string;
  baseline: string;
  tollgate: string;
  ratio: string;
  target: string;
}

/** The targets of issue 9, as ratios Tollgate / baseline (or absolute values). */
const targets = {
  decisionToToolStartP50: 1.2,
  burstThroughput: 0.8,
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
    );
    pair(
      'start → approval request p95',
      baseLatency?.startToRequestMs.p95,
      tollLatency?.startToRequestMs.p95,
      milliseconds,
    );
    if (!baseLatency || !tollLatency)
      failed('latency', errorOf(report.baseline.latency), errorOf(report.tollgate.latency));
  }

  const [baseBurst, tollBurst] = [ok(report.baseline.burst), ok(report.tollgate.burst)];
  if (report.baseline.burst || report.tollgate.burst) {
    const turns = report.options.turns;
    pair(
      `burst throughput, ${turns} waiting (decisions/s)`,
      baseBurst?.decisionsPerSecond,
      tollBurst?.decisionsPerSecond,
      (value) => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(0)),
      { text: `≥ ${targets.burstThroughput}×`, met: (ratio) => ratio >= targets.burstThroughput },
    );
    pair(
      'burst: decision → tool start p50',
      baseBurst?.burstDecisionToToolStartMs.p50,
      tollBurst?.burstDecisionToToolStartMs.p50,
      milliseconds,
    );
    pair(
      'burst: decision → tool start p95',
      baseBurst?.burstDecisionToToolStartMs.p95,
      tollBurst?.burstDecisionToToolStartMs.p95,
      milliseconds,
    );
    pair(
      `start → approval request p50, ${turns} starting`,
      baseBurst?.startToRequestUnderLoadMs.p50,
      tollBurst?.startToRequestUnderLoadMs.p50,
      milliseconds,
    );
    pair(
      'worker RSS per waiting turn',
      baseBurst?.residentBytesPerWaitingTurn,
      tollBurst?.residentBytesPerWaitingTurn,
      bytes,
      { text: `≤ ${targets.residentPerTurn}×`, met: (ratio) => ratio <= targets.residentPerTurn },
    );
    pair('worker RSS, idle', baseBurst?.residentBytesBefore, tollBurst?.residentBytesBefore, bytes);
    pair(`worker RSS, ${turns} waiting`, baseBurst?.residentBytesWaiting, tollBurst?.residentBytesWaiting, bytes);
    for (const [name, burst] of [
      ['baseline', baseBurst],
      ['tollgate', tollBurst],
    ] as const) {
      if (burst && burst.toolsStarted < burst.turns) {
        rows.push({
          figure: `${name} burst incomplete`,
          baseline: '',
          tollgate: '',
          ratio: '',
          target: `${burst.toolsStarted}/${burst.turns} tools started`,
        });
      }
    }
    if (!baseBurst || !tollBurst) failed('burst', errorOf(report.baseline.burst), errorOf(report.tollgate.burst));
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
    pair('largest payload per turn', baseHistory?.largestPayloadBytes, tollHistory?.largestPayloadBytes, bytes);
    if (!baseHistory || !tollHistory)
      failed('history', errorOf(report.baseline.history), errorOf(report.tollgate.history));
  }
  return rows;
}

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
      `${report.options.turns} waiting turns, both workers with maxCachedWorkflows ${report.options.maxCachedWorkflows}, ` +
      `Tollgate decided by ${report.options.tollgateDecision === 'update' ? 'update (TollgateClient.decide)' : 'signal'}, the baseline by signal. ` +
      'Ratio = Tollgate / bare Temporal (a workflow that waits for a signal, then runs one activity).',
    '',
  ];
  const rows = headlineRows(report);
  if (rows.length > 0) parts.push(markdownTable(rowCells(headlineHeader), rows.map(rowCells)), '');
  if (report.growth.length > 0) parts.push(markdownTable(growthHeader, growthRows(report)), '');
  return parts.join('\n');
}
