import type { BenchReport, SystemFigures } from '../../bench/bench-report';
import { renderText, spreadOf, turnsPerCpuSecond } from '../../bench/bench-report';
import type { BurstResult } from '../../bench/measure-burst';
import { decisionPhasesOf } from '../../bench/wait-phases';
import { benchReport } from './bench-report-fixture';

const summary = (p50: number) => ({ count: 10, p50, p95: p50 * 2 });

function burst(toolsPerSecond: number, workerCpuMs: number): BurstResult {
  return {
    turns: 100,
    fillMs: 1000,
    startToRequestUnderLoadMs: summary(100),
    residentBytesBefore: 100 * 1024 * 1024,
    residentBytesWaiting: 110 * 1024 * 1024,
    residentBytesPerWaitingTurn: 100 * 1024,
    toolsStarted: 100,
    burstMs: 1000,
    decisionsPerSecond: toolsPerSecond,
    turnsPerSecond: toolsPerSecond / 2,
    burstDecisionToToolStartMs: summary(500),
    failedDecisions: 0,
    workerCpuMsPerTurn: workerCpuMs,
    workflowTaskTimeouts: { turnsRead: 100, timeouts: 0 },
  };
}

function figures(...rounds: BurstResult[]): SystemFigures {
  return { bursts: { update: { rounds, failures: [] } } };
}

function report(parts: Pick<BenchReport, 'baseline' | 'handLoop' | 'tollgate'>): BenchReport {
  return benchReport(['burst'], parts);
}

/** The report's line that names `label`: the test fails on the line, not on undefined, when it is missing. */
function rowOf(text: string, label: string): string {
  const row = text.split('\n').find((line) => line.includes(label));
  if (row === undefined) throw new Error(`No row with "${label}" in:\n${text}`);
  return row;
}

describe('the bench report against both baselines', () => {
  it('gives Tollgate / bare and Tollgate / hand-written, the median with its spread, and judges the target on the hand-written loop', () => {
    const text = renderText(
      report({
        baseline: figures(burst(200, 10), burst(220, 10), burst(210, 10)),
        handLoop: figures(burst(100, 20), burst(120, 20), burst(110, 20)),
        tollgate: figures(burst(90, 21), burst(130, 21), burst(110, 21)),
      }),
    );
    const row = rowOf(text, 'tools started/s');
    // Medians 210, 110, 110 with each system's lowest and highest round.
    expect(row).toContain('210 (200–220)');
    expect(row).toContain('110 (100–120)');
    expect(row).toContain('110 (90–130)');
    expect(row).toContain('0.524×');
    expect(row).toContain('1.000×');
    expect(row).toContain('≥ 1× met');
    const cpu = rowOf(text, 'worker CPU per decided turn');
    expect(cpu).toContain('2.100×');
    expect(cpu).toContain('1.050×');
    expect(cpu).toContain('≤ 1.05× met');
  });

  it("adds up each decision's own way to its tool, apart from the burst's ramp, and how long it kept its place", () => {
    const timed = (sentToScheduledMs: number, placeKeptAfterToolMs: number): BurstResult => ({
      ...burst(100, 20),
      decisionTimeline: {
        turnsRead: 100,
        untilTaskScheduledMs: sentToScheduledMs,
        taskQueuedMs: 2_000,
        taskRunMs: 100,
        untilToolMs: 50,
      },
      placeKeptAfterToolMs,
    });
    const text = renderText(
      report({
        baseline: figures(timed(50, 1), timed(50, 1), timed(50, 1)),
        handLoop: figures(timed(50, 2), timed(150, 2), timed(250, 2)),
        tollgate: figures(timed(10, 1), timed(30, 1), timed(20, 1)),
      }),
    );
    const own = rowOf(text, 'each decision alone');
    // 2,150 + the sent → scheduled of each round: medians 2,170 (Tollgate) and 2,300 (the loop).
    expect(own).toContain('2170.0 ms (2160.0–2180.0)');
    expect(own).toContain('2300.0 ms (2200.0–2400.0)');
    expect(own).toContain('0.943×');
    const kept = rowOf(text, 'keeps its place');
    expect(kept).toContain('0.500×');
    // An older report without them leaves the rows open.
    const older = renderText(
      report({
        baseline: figures(burst(200, 10)),
        handLoop: figures(burst(100, 20)),
        tollgate: figures(burst(100, 20)),
      }),
    );
    expect(rowOf(older, 'each decision alone')).not.toContain('×');
  });

  it('reads an older report without the hand-written loop, its ratios left open', () => {
    const text = renderText(report({ baseline: figures(burst(200, 10)), tollgate: figures(burst(100, 30)) }));
    const row = rowOf(text, 'tools started/s');
    expect(row).toContain('0.500×');
    expect(row).toMatch(/–\s+≥ 1×$/);
  });
});

describe('spreadOf and turnsPerCpuSecond', () => {
  it('takes the median, lowest and highest of the finite values', () => {
    expect(spreadOf([3, undefined, 1, NaN, 2])).toEqual({ median: 2, low: 1, high: 3 });
    expect(spreadOf([undefined])).toBeUndefined();
  });

  it('turns CPU milliseconds per turn into turns per CPU-second', () => {
    expect(turnsPerCpuSecond(20)).toBe(50);
    expect(turnsPerCpuSecond(0)).toBeUndefined();
    expect(turnsPerCpuSecond(undefined)).toBeUndefined();
  });
});

describe('decisionPhasesOf', () => {
  const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });

  it('splits decision → tool start into the workflow task waiting, running, and the activity waiting', () => {
    const events = [
      { eventId: 1, eventTime: at(0), workflowExecutionStartedEventAttributes: {} },
      { eventId: 5, eventTime: at(100), workflowTaskScheduledEventAttributes: {} },
      { eventId: 6, eventTime: at(130), workflowTaskStartedEventAttributes: {} },
      {
        eventId: 7,
        eventTime: at(145),
        workflowTaskCompletedEventAttributes: { scheduledEventId: 5, startedEventId: 6 },
      },
      { eventId: 8, eventTime: at(145), workflowExecutionUpdateAcceptedEventAttributes: {} },
      { eventId: 9, eventTime: at(145), activityTaskScheduledEventAttributes: {} },
      { eventId: 10, eventTime: at(210), activityTaskStartedEventAttributes: { scheduledEventId: 9 } },
    ];
    expect(decisionPhasesOf(events as unknown as Parameters<typeof decisionPhasesOf>[0])).toEqual({
      taskQueuedMs: 30,
      taskRunMs: 15,
      activityQueuedMs: 65,
    });
  });

  it('has nothing to say of a history without a decided tool', () => {
    expect(decisionPhasesOf([])).toBeUndefined();
  });
});
