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
import { createCoverageMap, type CoverageMap, type CoverageMapData } from 'istanbul-lib-coverage';
import { createSourceMapStore } from 'istanbul-lib-source-maps';

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

async function toSource(counters: CoverageMapData): Promise<CoverageMap> {
  return createSourceMapStore().transformCoverage(createCoverageMap(counters));
}
