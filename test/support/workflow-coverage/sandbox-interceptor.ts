// Runs inside the workflow sandbox under `--coverage` (the global set-up adds it to the bundle's interceptors): after
// every activation, the counters that moved since the last one go out through the `coverage` sink, and are zeroed.
// Only counters travel: the maps each test file's sink needs to rebuild whole records come from the set-up's
// template file (sink.ts). Sending the whole istanbul record after every activation, as
// @temporalio/nyc-test-coverage's interceptor does, took half of the suite's CPU.
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { CoverageHits } from './coverage-hits';

/** A module's counters: typed arrays indexed by istanbul's counter keys (instrument-loader.js). */
interface FileCounters {
  s: Uint32Array;
  f: Uint32Array;
  b: Record<string, Uint32Array>;
}

interface CoverageSinks extends Sinks {
  coverage: { add(hits: CoverageHits): void };
}

const { coverage } = proxySinks<CoverageSinks>();

/** Where instrument-loader.js keeps the records of modules loaded inside one workflow (its `lateRecordsKey`). */
const lateRecordsKey = '__tollgateLateCoverageRecords__';

/** Every instrumented module's counters: those preloaded into the context, and those loaded later. */
function countersOfEveryModule(): [string, FileCounters][] {
  const files = (globalThis as { __coverage__?: Record<string, FileCounters> }).__coverage__;
  if (!files) return [];
  const late = (files as unknown as Record<string, Map<string, FileCounters> | undefined>)[lateRecordsKey];
  return [...Object.entries(files), ...(late ?? new Map<string, FileCounters>())];
}

/** The counters that moved since the last call, zeroed in place; undefined when none did. */
function takeHits(): CoverageHits | undefined {
  let hits: CoverageHits | undefined;
  for (const [path, file] of countersOfEveryModule()) {
    let fileHits: CoverageHits[string] | undefined;
    const take = () => (fileHits ??= (hits ??= {})[path] = {});
    for (let index = 0; index < file.s.length; index++) {
      if (file.s[index] === 0) continue;
      (take().s ??= {})[index] = file.s[index]!;
      file.s[index] = 0;
    }
    for (let index = 0; index < file.f.length; index++) {
      if (file.f[index] === 0) continue;
      (take().f ??= {})[index] = file.f[index]!;
      file.f[index] = 0;
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
