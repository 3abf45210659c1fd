// Jest's node environment, plus one step when a test file with coverage on is done: the workflow coverage that
// test/support/workflow-coverage/sink.ts gathered joins the file's own, under names of its own.
//
// Why other names: Jest merges every test file's counters by file name first and maps them through each file's
// source map once, at the end of the run. That works while all counters under one name come from one compilation.
// Workflow counters come from the bundle's compilation (SWC, through webpack), Jest's from esbuild, so the same
// statement sits at different places in the two: under one name, one of them would be mapped through the other's
// source map. Under `<file>.workflow-bundle.js` (same folder, so the map's sources resolve to the same .ts file),
// each is merged with its own kind and mapped through its own map, and both land on the .ts source at the end.
// (This is also why the package's own `mergeIntoGlobalCoverage()` cannot be used as is.)
//
// The records go to Jest as they are, without their maps' `sourcesContent` (the reports read the sources from disk):
// nothing is mapped per test file, and test/support/test-runtime.js hands this fresh object to Jest without the deep
// copy Jest would otherwise make of it.
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';
import type { CoverageMapData, FileCoverageData } from 'istanbul-lib-coverage';
import { countersOnlyRunVariable, CoverageHandOver } from './fast-coverage-merge';

const workflowCoverageGlobal = '__tollgateWorkflowCoverage__';

/** The name a workflow file's coverage record goes by: beside the file, so its source map resolves the same way. */
export function workflowRecordName(file: string): string {
  return `${file}.workflow-bundle.js`;
}

/** What this Jest worker process handed over whole this run: later test files send those files' counters alone. */
const handOver = new CoverageHandOver();

export default class CoverageEnvironment extends TestEnvironment {
  async handleTestEvent(event: Circus.Event): Promise<void> {
    // 'teardown' comes after every afterAll hook (workers stopped, their last counters in) and before Jest reads
    // the test file's coverage.
    if (event.name !== 'teardown') return;
    const scope = this.global as unknown as Record<string, unknown>;
    const counters = scope.__coverage__ as CoverageMapData | undefined;
    const workflow = scope[workflowCoverageGlobal] as CoverageMapData | undefined;
    if (!counters && !workflow) return; // coverage is off
    // Each record whole the first time this worker hands its file over in the run, its counters alone after
    // (test/support/fast-coverage-merge.ts).
    const run = process.env[countersOnlyRunVariable];
    const records: CoverageMapData = {};
    for (const [file, record] of Object.entries(counters ?? {}))
      records[file] = handOver.handOver(withoutSources(record as FileCoverageData), run);
    for (const [file, record] of Object.entries(workflow ?? {})) {
      const name = workflowRecordName(file);
      // One instrumentation, the run's bundle, for every test file's record: Jest's process adds them counter by
      // counter.
      const whole = { ...withoutSources(record as FileCoverageData), path: name, hash: workflowBundleHash() };
      records[name] = handOver.handOver(whole as FileCoverageData, run);
    }
    // Marks the hand-over for test-runtime.js, which passes it on without copying it.
    Object.defineProperty(records, Symbol.for('tollgate.test.coverageHandedOver'), { value: true });
    scope.__coverage__ = records;
  }
}

/** Names the run's workflow bundle, the one instrumentation every workflow record of the run comes from. */
function workflowBundleHash(): string {
  return `workflow-bundle ${process.env.TOLLGATE_TEST_WORKFLOW_BUNDLE ?? ''}`;
}

/** What istanbul keeps of a file beside its counters, as far as it matters here: the map back to its source. */
interface MappedFileData extends FileCoverageData {
  inputSourceMap?: { sourcesContent?: unknown };
}

function withoutSources(record: FileCoverageData): FileCoverageData {
  const { inputSourceMap } = record as MappedFileData;
  if (!inputSourceMap?.sourcesContent) return record;
  return { ...record, inputSourceMap: { ...inputSourceMap, sourcesContent: undefined } } as FileCoverageData;
}
