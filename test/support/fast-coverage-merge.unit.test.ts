import istanbul, { type FileCoverageData } from 'istanbul-lib-coverage';
import {
  coverageClasses,
  CoverageHandOver,
  installFastCoverageMerge,
  sameInstrumentation,
} from './fast-coverage-merge';

// This test file's own copy of istanbul-lib-coverage (Jest gives each test file its own modules): installing on it
// changes nothing outside the file. istanbul's own merge is kept aside first, to compare with.
const [FileCoverage, CoverageMap] = coverageClasses(istanbul);
const istanbulsMerge = FileCoverage.prototype.merge;
installFastCoverageMerge(FileCoverage, CoverageMap);

const location = (line: number) => ({ start: { line, column: 0 }, end: { line, column: 10 } });

/** A file's record as istanbul instruments it: three statements, one function, one if with two branches. */
function record(counts: { s: number[]; f: number[]; b: number[] }, hash = 'abc'): FileCoverageData {
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
  for (const next of records.slice(1)) istanbulsMerge.call(merged, new FileCoverage(structuredClone(next)));
  return merged.toJSON() as FileCoverageData;
}

/** The installed merge of the records, one after another, into the first. */
function fastMerge(...records: FileCoverageData[]) {
  const merged = new FileCoverage(structuredClone(records[0]!));
  for (const next of records.slice(1)) merged.merge(new FileCoverage(structuredClone(next)));
  return merged;
}

const three = [
  record({ s: [1, 0, 2], f: [1], b: [0, 2] }),
  record({ s: [3, 1, 0], f: [3], b: [1, 0] }),
  record({ s: [0, 0, 5], f: [0], b: [4, 4] }),
];

describe("Jest's coverage merge by adding counters", () => {
  it('adds the counters of records of one instrumentation, as istanbul would', () => {
    const merged = fastMerge(...three);
    expect(merged.toJSON()).toEqual(istanbulMerge(...three));
    expect(merged.s).toEqual({ 0: 4, 1: 1, 2: 7 });
    expect(merged.b).toEqual({ 0: [5, 6] });
  });

  it("leaves records of other instrumentations to istanbul's merge, and keeps to it for that file", () => {
    // The same shape from another compilation: its statements sit elsewhere, so adding by index would be wrong.
    const other = {
      ...record({ s: [5, 5, 5], f: [0], b: [0, 0] }, 'def'),
      statementMap: { 0: location(7), 1: location(8), 2: location(9) },
    };
    const records = [three[0]!, other, three[1]!];
    const merged = fastMerge(...records);
    expect(merged.toJSON()).toEqual(istanbulMerge(...records));
    expect(Object.keys(merged.s)).toHaveLength(6);
  });

  it('tells one instrumentation from another by hash and by shape', () => {
    const base = three[0]!;
    expect(sameInstrumentation(base, three[1]!)).toBe(true);
    expect(sameInstrumentation(base, record({ s: [0, 0, 0], f: [0], b: [0, 0] }, 'def'))).toBe(false);
    expect(sameInstrumentation({ ...base, hash: undefined } as unknown as FileCoverageData, base)).toBe(false);
    expect(sameInstrumentation(base, { ...base, s: { 0: 1, 1: 0 } })).toBe(false);
    expect(sameInstrumentation(base, { ...base, b: { 0: [1, 2, 3] } })).toBe(false);
  });

  it('installs once', () => {
    const merge = FileCoverage.prototype.merge;
    installFastCoverageMerge(FileCoverage, CoverageMap);
    expect(FileCoverage.prototype.merge).toBe(merge);
  });
});

describe('handing a file over whole once a run, then its counters alone', () => {
  it('sends the whole record the first time in a run, then counters without maps, and whole again in a new run', () => {
    const handOver = new CoverageHandOver();
    expect(handOver.handOver(three[0]!, 'run-1')).toBe(three[0]);
    const counters = handOver.handOver(three[1]!, 'run-1') as FileCoverageData & { countersOnly?: true };
    expect(counters).toEqual({ ...three[1]!, statementMap: {}, fnMap: {}, branchMap: {}, countersOnly: true });
    expect(handOver.handOver(three[2]!, 'run-2')).toBe(three[2]);
    // No run (Jest's process merges istanbul's way), or a record without a hash: always whole.
    expect(handOver.handOver(three[1]!, undefined)).toBe(three[1]);
    const unhashed = { ...three[0]!, hash: undefined } as unknown as FileCoverageData;
    expect(handOver.handOver(unhashed, 'run-2')).toBe(unhashed);
    expect(handOver.handOver(unhashed, 'run-2')).toBe(unhashed);
  });

  it("gives Jest's coverage map the same coverage as whole records would", () => {
    const handOver = new CoverageHandOver();
    const viaCounters = istanbul.createCoverageMap({});
    for (const next of three) viaCounters.merge({ [next.path]: handOver.handOver(structuredClone(next), 'run') });
    expect(viaCounters.files()).toEqual(['/src/rule.ts']);
    expect(viaCounters.fileCoverageFor('/src/rule.ts').toJSON()).toEqual(istanbulMerge(...three));
  });

  it('refuses counters alone where there is nothing of their instrumentation to add them to', () => {
    const handOver = new CoverageHandOver();
    handOver.handOver(three[0]!, 'run');
    const counters = handOver.handOver(three[1]!, 'run');
    expect(() => istanbul.createCoverageMap({}).merge({ [counters.path]: counters })).toThrow(
      "The coverage of /src/rule.ts came as counters alone, but Jest's process holds no record of the file",
    );
    const otherInstrumentation = istanbul.createCoverageMap({
      '/src/rule.ts': record({ s: [1, 1, 1], f: [0], b: [0, 0] }, 'def'),
    });
    expect(() => otherInstrumentation.merge({ [counters.path]: counters })).toThrow(
      'a record of another instrumentation',
    );
  });
});
