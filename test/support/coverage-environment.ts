// Jest's node environment, plus one step when a test file with coverage on is done: its coverage is mapped back
// to the TypeScript sources, and the workflow coverage that test/support/workflow-coverage/sink.ts gathered (mapped the
// same way) is added to it.
//
// Why map here and not leave it to Jest: Jest merges every test file's counters first and maps them through source
// maps last, which works while all counters of a file come from one compilation. Workflow counters come from the
// bundle's compilation (SWC, through webpack), Jest's from ts-jest, so the same statement sits at different places
// in the two; merged unmapped, they would be mapped through the wrong source map. Mapped per test file, every
// counter Jest receives already points into the .ts source, so Jest merges like with like and maps nothing more.
// (This is also why the package's own `mergeIntoGlobalCoverage()` cannot be used as is.)
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';
import {
  createCoverageMap,
  type CoverageMap,
  type CoverageMapData,
  type FileCoverage,
  type Range,
} from 'istanbul-lib-coverage';
import { TraceMap } from '@jridgewell/trace-mapping';
import { SourceMapTransformer, type Mapping } from 'istanbul-lib-source-maps/lib/transformer';
import getMapping from 'istanbul-lib-source-maps/lib/get-mapping';

const workflowCoverageGlobal = '__tollgateWorkflowCoverage__';

export default class CoverageEnvironment extends TestEnvironment {
  async handleTestEvent(event: Circus.Event): Promise<void> {
    // 'teardown' comes after every afterAll hook (workers stopped, their last counters in) and before Jest reads
    // the test file's coverage.
    if (event.name !== 'teardown') return;
    const scope = this.global as unknown as Record<string, unknown>;
    const counters = scope.__coverage__ as CoverageMapData | undefined;
    const workflow = scope[workflowCoverageGlobal] as CoverageMapData | undefined;
    if (!counters && !workflow) return; // coverage is off
    const mapped = await toSource(counters ?? {});
    // A copy: the map was made in the test file's module registry, with its own istanbul classes.
    if (workflow) mapped.merge(await toSource(JSON.parse(JSON.stringify(workflow)) as CoverageMapData));
    scope.__coverage__ = JSON.parse(JSON.stringify(mapped)) as CoverageMapData;
  }
}

// What mapping costs, kept for the Jest worker's life: the same instrumented file (same path, same content hash)
// maps the same way in every test file, and a worker runs dozens of test files that load the same sources. Parsing
// each file's source map and looking up each counter's place again took most of a second per test file.
const sourceMaps = new Map<string, TraceMap>();
const mappings = new WeakMap<TraceMap, Map<string, Mapping | null>>();

async function toSource(counters: CoverageMapData): Promise<CoverageMap> {
  const finder = async (file: string, coverage: FileCoverage) => sourceMapOf(file, coverage.data as MappedFileData);
  const transformer = new SourceMapTransformer(finder, { getMapping: cachedMapping });
  return transformer.transform(createCoverageMap(counters));
}

/** What istanbul keeps of a file beside its counters: the hash of its content and the map to its source. */
interface MappedFileData {
  hash?: string;
  inputSourceMap?: ConstructorParameters<typeof TraceMap>[0];
}

function sourceMapOf(file: string, data: MappedFileData): TraceMap | null {
  if (!data.inputSourceMap) return null;
  const key = `${file}\0${data.hash ?? JSON.stringify(data.inputSourceMap)}`;
  let map = sourceMaps.get(key);
  if (!map) {
    map = new TraceMap(data.inputSourceMap);
    sourceMaps.set(key, map);
  }
  return map;
}

function cachedMapping(sourceMap: TraceMap, location: Range, file: string): Mapping | null {
  let known = mappings.get(sourceMap);
  if (!known) mappings.set(sourceMap, (known = new Map()));
  const { start, end } = location;
  const key = `${start.line}:${start.column}:${end.line}:${end.column}`;
  if (!known.has(key)) known.set(key, getMapping(sourceMap, location, file));
  return known.get(key) ?? null;
}
