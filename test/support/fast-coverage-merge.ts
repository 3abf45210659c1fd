// Jest's own process merges each test file's coverage into one map with istanbul-lib-coverage's FileCoverage.merge,
// which matches statements, functions and branches by their places in the source, building a text key for every one
// of them on both sides at each merge: 130-190 ms for an integration test file, whose modules cover some 300 source
// files, and 250 test files a run. But the records of one run come from one instrumentation of each file (Jest's
// transform of `src/`, cached by the source's content, or the run's one workflow bundle), named by the record's
// `hash`: where two records carry the same hash and as many statements, functions and branches, the same index is the
// same place in both, and merging is adding their counters. The global set-up (which runs in Jest's own process)
// installs that path; every other merge is istanbul's, and a file merged istanbul's way once keeps to it.
import path from 'node:path';
import type * as istanbulLibCoverage from 'istanbul-lib-coverage';
import type { FileCoverage, FileCoverageData } from 'istanbul-lib-coverage';

/** What istanbul keeps in a record beside what its types say: the instrumentation's hash, branch truthiness. */
interface Counters extends FileCoverageData {
  hash?: string;
  all?: boolean;
  bT?: Record<string, number[]>;
}

/** istanbul-lib-coverage's FileCoverage class (its module exports it as `classes.FileCoverage`). */
export type FileCoverageClass = typeof FileCoverage;
type Merge = FileCoverage['merge'] & { fastCoverageMerge?: true };

/** File coverages that went through istanbul's own merge: their indices may no longer be the instrumentation's. */
const mergedByLocation = new WeakSet<object>();

/** Whether `a` and `b` are counters of one instrumentation (see the top of this file). */
export function sameInstrumentation(a: Counters, b: Counters): boolean {
  if (typeof a.hash !== 'string' || a.hash !== b.hash || a.all === true || b.all === true) return false;
  if (Boolean(a.bT) !== Boolean(b.bT)) return false;
  for (const counters of ['s', 'f', 'b'] as const) {
    const left: Record<string, unknown> | undefined = a[counters];
    const right: Record<string, unknown> | undefined = b[counters];
    if (!left || !right) return false;
    const keys = Object.keys(right);
    if (keys.length !== Object.keys(left).length) return false;
    for (const key of keys) {
      if (!(key in left)) return false;
      if (counters !== 'b') continue;
      if (a.b[key]!.length !== b.b[key]!.length || a.bT?.[key]?.length !== b.bT?.[key]?.length) return false;
    }
  }
  return true;
}

/** Adds `b`'s counters to `a`'s, index by index. */
function addCounters(a: Counters, b: Counters): void {
  for (const [key, hits] of Object.entries(b.s)) a.s[key]! += hits;
  for (const [key, hits] of Object.entries(b.f)) a.f[key]! += hits;
  for (const [key, hits] of Object.entries(b.b)) hits.forEach((count, index) => (a.b[key]![index]! += count));
  if (!a.bT || !b.bT) return;
  for (const [key, hits] of Object.entries(b.bT)) hits.forEach((count, index) => (a.bT![key]![index]! += count));
}

/** Installs the fast path on a FileCoverage class (istanbul-lib-coverage's, as Jest's reporters load it). Once. */
export function installFastCoverageMerge(FileCoverageClass: FileCoverageClass): void {
  const prototype = FileCoverageClass.prototype as FileCoverage & { data: Counters };
  const merge = prototype.merge as Merge;
  if (merge.fastCoverageMerge) return;
  const fastMerge: Merge = Object.assign(
    function (this: FileCoverage & { data: Counters }, other: FileCoverageData | FileCoverage) {
      const otherData: Counters = 'data' in other ? (other.data as Counters) : other;
      if (!mergedByLocation.has(this) && sameInstrumentation(this.data, otherData)) {
        addCounters(this.data, otherData);
        return;
      }
      mergedByLocation.add(this);
      merge.call(this, other as FileCoverageData);
    },
    { fastCoverageMerge: true as const },
  );
  prototype.merge = fastMerge;
}

/** The FileCoverage class of the istanbul-lib-coverage that Jest's reporters load. */
export function reportersFileCoverage(): FileCoverageClass {
  const reporters = require.resolve('@jest/reporters');
  const istanbul = require.resolve('istanbul-lib-coverage', { paths: [path.dirname(reporters)] });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return fileCoverageClass(require(istanbul) as typeof istanbulLibCoverage);
}

/** The FileCoverage class of a loaded istanbul-lib-coverage (its types give `classes.FileCoverage` as an instance). */
export function fileCoverageClass(istanbul: typeof istanbulLibCoverage): FileCoverageClass {
  return istanbul.classes.FileCoverage as unknown as FileCoverageClass;
}
