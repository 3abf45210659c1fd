// Runs inside the workflow sandbox under `--coverage` (the global set-up adds it to the bundle's interceptors): after
// every activation, the counters that moved since the last one go out through the `coverage` sink, and are zeroed.
// Only counters travel: the maps each test file's sink needs to rebuild whole records come from the set-up's
// template file (sink.ts). Sending the whole istanbul record after every activation, as
// @temporalio/nyc-test-coverage's interceptor does, took half of the suite's CPU.
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { CoverageHits } from './coverage-hits';

interface FileCounters {
  s: Record<string, number>;
  f: Record<string, number>;
  b: Record<string, number[]>;
}

interface CoverageSinks extends Sinks {
  coverage: { add(hits: CoverageHits): void };
}

const { coverage } = proxySinks<CoverageSinks>();

/** The counters that moved since the last call, zeroed in place; undefined when none did. */
function takeHits(): CoverageHits | undefined {
  const files = (globalThis as { __coverage__?: Record<string, FileCounters> }).__coverage__;
  if (!files) return undefined;
  let hits: CoverageHits | undefined;
  for (const path of Object.keys(files)) {
    const file = files[path]!;
    let fileHits: CoverageHits[string] | undefined;
    const take = () => (fileHits ??= (hits ??= {})[path] = {});
    for (const key of Object.keys(file.s)) {
      const count = file.s[key]!;
      if (count === 0) continue;
      (take().s ??= {})[key] = count;
      file.s[key] = 0;
    }
    for (const key of Object.keys(file.f)) {
      const count = file.f[key]!;
      if (count === 0) continue;
      (take().f ??= {})[key] = count;
      file.f[key] = 0;
    }
    for (const key of Object.keys(file.b)) {
      const counts = file.b[key]!;
      if (counts.every((count) => count === 0)) continue;
      (take().b ??= {})[key] = [...counts];
      counts.fill(0);
    }
  }
  return hits;
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      concludeActivation(input, next) {
        const hits = takeHits();
        if (hits) coverage.add(hits);
        return next(input);
      },
    },
  ],
});
