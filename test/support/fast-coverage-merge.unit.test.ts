import istanbul, { type FileCoverageData } from 'istanbul-lib-coverage';
import { fileCoverageClass, installFastCoverageMerge, sameInstrumentation } from './fast-coverage-merge';

const FileCoverage = fileCoverageClass(istanbul);

/** A file's record as istanbul instruments it: three statements, one function, one if with two branches. */
function record(counts: { s: number[]; f: number[]; b: number[] }, hash = 'abc'): FileCoverageData {
  const location = (line: number) => ({ start: { line, column: 0 }, end: { line, column: 10 } });
  return {
    path: '/src/rule.ts',
    hash,
    statementMap: { 0: location(1), 1: location(2), 2: location(3) },
    fnMap: { 0: { name: 'rule', decl: location(1), loc: location(1), line: 1 } },
    branchMap: { 0: { type: 'if', loc: location(2), locations: [location(2), location(3)], line: 2 } },
    s: { 0: counts.s[0]!, 1: counts.s[1]!, 2: counts.s[2]! },
    f: { 0: counts.f[0]! },
    b: { 0: [counts.b[0]!, counts.b[1]!] },
  } as FileCoverageData;
}

/** istanbul's own merge of the records, one after another, into the first. */
function istanbulMerge(...records: FileCoverageData[]): FileCoverageData {
  const merged = new FileCoverage(structuredClone(records[0]!));
  for (const next of records.slice(1)) merged.merge(new FileCoverage(structuredClone(next)));
  return merged.toJSON() as FileCoverageData;
}

describe("Jest's coverage merge by adding counters", () => {
  // A class of its own, so that istanbul's FileCoverage keeps its merge for the comparisons.
  class FastFileCoverage extends FileCoverage {}
  installFastCoverageMerge(FastFileCoverage);
  const fastMerge = (...records: FileCoverageData[]) => {
    const merged = new FastFileCoverage(structuredClone(records[0]!));
    for (const next of records.slice(1)) merged.merge(new FileCoverage(structuredClone(next)));
    return merged;
  };

  it('adds the counters of records of one instrumentation, as istanbul would', () => {
    const records = [
      record({ s: [1, 0, 2], f: [1], b: [0, 2] }),
      record({ s: [3, 1, 0], f: [3], b: [1, 0] }),
      record({ s: [0, 0, 5], f: [0], b: [4, 4] }),
    ];
    const merged = fastMerge(...records);
    expect(merged.toJSON()).toEqual(istanbulMerge(...records));
    expect(merged.s).toEqual({ 0: 4, 1: 1, 2: 7 });
    expect(merged.b).toEqual({ 0: [5, 6] });
  });

  it("leaves records of other instrumentations to istanbul's merge, and keeps to it for that file", () => {
    // The same shape from another compilation: its statements sit elsewhere, so adding by index would be wrong.
    const moved = (line: number) => ({ start: { line, column: 0 }, end: { line, column: 10 } });
    const other = {
      ...record({ s: [5, 5, 5], f: [0], b: [0, 0] }, 'def'),
      statementMap: { 0: moved(7), 1: moved(8), 2: moved(9) },
    };
    const records = [record({ s: [1, 0, 2], f: [1], b: [0, 2] }), other, record({ s: [3, 1, 0], f: [3], b: [1, 0] })];
    const merged = fastMerge(...records);
    expect(merged.toJSON()).toEqual(istanbulMerge(...records));
    expect(Object.keys(merged.s)).toHaveLength(6);
  });

  it('tells one instrumentation from another by hash and by shape', () => {
    const base = record({ s: [1, 0, 2], f: [1], b: [0, 2] });
    expect(sameInstrumentation(base, record({ s: [0, 0, 0], f: [0], b: [0, 0] }))).toBe(true);
    expect(sameInstrumentation(base, record({ s: [0, 0, 0], f: [0], b: [0, 0] }, 'def'))).toBe(false);
    expect(sameInstrumentation({ ...base, hash: undefined } as unknown as FileCoverageData, base)).toBe(false);
    expect(sameInstrumentation(base, { ...base, s: { 0: 1, 1: 0 } })).toBe(false);
    expect(sameInstrumentation(base, { ...base, b: { 0: [1, 2, 3] } })).toBe(false);
  });

  it('installs once', () => {
    const merge = FastFileCoverage.prototype.merge;
    installFastCoverageMerge(FastFileCoverage);
    expect(FastFileCoverage.prototype.merge).toBe(merge);
  });
});
