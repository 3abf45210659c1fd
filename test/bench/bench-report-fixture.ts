import type { BenchReport } from '../../bench/bench-report';

/** A bench report of `only` these figures, with `parts` filled in and everything else empty, for the report's tests. */
export function benchReport(only: string[], parts: Partial<BenchReport>): BenchReport {
  return {
    date: '2026-11-27T00:00:00.000Z',
    machine: { cpu: 'test', cores: 2, memoryGiB: 4, platform: 'Linux', node: '20' },
    options: {
      turns: 100,
      steps: [],
      only,
      latencySamples: 1,
      historySamples: 1,
      maxCachedWorkflows: 200,
      startConcurrency: 50,
      decisions: ['update'],
      inFlight: 100,
      rounds: 3,
      warmUpTurns: 10,
      modelSteps: ['activity'],
      scaleTurns: 100,
      storeSteps: 1,
    },
    baseline: {},
    handLoop: {},
    tollgate: {},
    growth: [],
    modelFailures: [],
    durationMs: 1,
    ...parts,
  };
}
