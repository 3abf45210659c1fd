// Jest's own process merges each test file's coverage into one map with istanbul-lib-coverage's FileCoverage.merge,
// which matches statements, functions and branches by their places in the source, building a text key for every one
// of them on both sides at each merge: 130-190 ms (measured alone) for an integration test file, whose modules cover
// some 300 source files, and 250 test files a run. But the records of one run come from one instrumentation of each
// file (Jest's transform of `src/`, cached by the source's content, or the run's one workflow bundle), named by the
// record's `hash`: where two records carry the same hash and as many statements, functions and branches, the same
// index is the same place in both, and merging is adding their counters. The global set-up (which runs in Jest's own
// process) installs that path; every other merge is istanbul's, and a file merged istanbul's way once keeps to it.
//
// With that path installed, most of a record need not travel at all: a Jest worker hands over a file's whole record
// (its maps, 3-4.5 MB for an integration test file's modules) the first time in a run, and after that its counters
// alone ({@link CoverageHandOver}); Jest's process already has the maps from that worker's earlier test file, since
// a worker's results arrive in order. A record of counters alone that Jest's process cannot add to one it holds (no
// record of the file yet, or one of another instrumentation) stops the merge with an error rather than a report
// that would be wrong.
import path from 'node:path';
import type * as istanbulLibCoverage from 'istanbul-lib-coverage';
import type { CoverageMap, FileCoverage, FileCoverageData } from 'istanbul-lib-coverage';

/** What istanbul keeps in a record beside what its types say: the instrumentation's hash, branch truthiness. */
interface Counters extends FileCoverageData {
  hash?: string;
  all?: boolean;
  bT?: Record<string, number[]>;
  /** Set on a record whose maps stayed behind ({@link CoverageHandOver}). */
  countersOnly?: true;
}

/**
 * Set by the global set-up, to a value of its run, once Jest's process merges by adding counters; Jest's workers
 * inherit it. Unset, every record is handed over whole.
 */
export const countersOnlyRunVariable = 'TOLLGATE_TEST_COVERAGE_COUNTERS_RUN';

/** What one Jest worker process handed over whole in the current run (see the top of this file). */
export class CoverageHandOver {
  private run: string | undefined;
  private readonly sentWhole = new Set<string>();

  /**
   * `record` as this process hands it over in `run` (the value of {@link countersOnlyRunVariable}): whole the first
   * time, then its counters alone. Whole always when there is no run or the record has no hash.
   */
  handOver(record: FileCoverageData, run: string | undefined): FileCoverageData {
    const { path: file, hash, s, f, b, bT } = record as Counters;
    if (!run || typeof hash !== 'string') return record;
    if (run !== this.run) {
      this.run = run;
      this.sentWhole.clear();
    }
    const key = `${file}\0${hash}`;
    if (!this.sentWhole.has(key)) {
      this.sentWhole.add(key);
      return record;
    }
    const counters: Counters = {
      path: file,
      hash,
      statementMap: {},
      fnMap: {},
      branchMap: {},
      s,
      f,
      b,
      countersOnly: true,
    };
    if (bT) counters.bT = bT;
    return counters;
  }
}

/** istanbul-lib-coverage's FileCoverage class (its module exports it as `classes.FileCoverage`). */
export type FileCoverageClass = typeof FileCoverage;
/** istanbul-lib-coverage's CoverageMap class (not exported by name: the constructor of a map it creates). */
export type CoverageMapClass = typeof CoverageMap;
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

/**
 * Installs the fast path on istanbul-lib-coverage's classes (as Jest's reporters load them), and the refusal of a
 * record of counters alone where it cannot be added. Once.
 */
export function installFastCoverageMerge(
  FileCoverageClass: FileCoverageClass,
  CoverageMapClass: CoverageMapClass,
): void {
  const prototype = FileCoverageClass.prototype as FileCoverage & { data: Counters };
  const merge = prototype.merge as Merge;
  if (merge.fastCoverageMerge) return;
  const fastMerge: Merge = Object.assign(
    function (this: FileCoverage & { data: Counters }, other: FileCoverageData | FileCoverage) {
      const otherData = dataOf(other);
      if (!mergedByLocation.has(this) && sameInstrumentation(this.data, otherData)) {
        addCounters(this.data, otherData);
        return;
      }
      if (otherData.countersOnly) throw countersOnlyError(otherData, 'a record of another instrumentation');
      mergedByLocation.add(this);
      merge.call(this, other as FileCoverageData);
    },
    { fastCoverageMerge: true as const },
  );
  prototype.merge = fastMerge;
  const mapPrototype = CoverageMapClass.prototype as CoverageMap & { data: Record<string, unknown> };
  const addFileCoverage = mapPrototype.addFileCoverage;
  mapPrototype.addFileCoverage = function (this: CoverageMap & { data: Record<string, unknown> }, coverage) {
    const data = typeof coverage === 'string' ? undefined : dataOf(coverage);
    if (data?.countersOnly && !this.data[data.path]) throw countersOnlyError(data, 'no record of the file');
    addFileCoverage.call(this, coverage);
  };
}

function dataOf(coverage: FileCoverageData | FileCoverage): Counters {
  return ('data' in coverage ? coverage.data : coverage) as Counters;
}

function countersOnlyError(data: Counters, found: string): Error {
  return new Error(
    `The coverage of ${data.path} came as counters alone, but Jest's process holds ${found} to add them to ` +
      '(test/support/fast-coverage-merge.ts).',
  );
}

/** The istanbul-lib-coverage that Jest's reporters load, as the classes {@link installFastCoverageMerge} takes. */
export function reportersCoverageClasses(): [FileCoverageClass, CoverageMapClass] {
  const reporters = require.resolve('@jest/reporters');
  const istanbul = require.resolve('istanbul-lib-coverage', { paths: [path.dirname(reporters)] });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return coverageClasses(require(istanbul) as typeof istanbulLibCoverage);
}

/** The FileCoverage and CoverageMap classes of a loaded istanbul-lib-coverage (its types give neither as a class). */
export function coverageClasses(istanbul: typeof istanbulLibCoverage): [FileCoverageClass, CoverageMapClass] {
  const FileCoverageClass = istanbul.classes.FileCoverage as unknown as FileCoverageClass;
  const CoverageMapClass = istanbul.createCoverageMap({}).constructor as CoverageMapClass;
  return [FileCoverageClass, CoverageMapClass];
}
