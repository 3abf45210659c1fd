// Workflow code coverage (`npm test -- --coverage`): Jest instruments what runs in its own module system, but
// workflow code runs from the bundle built in global-setup.ts, inside each worker's sandbox. With coverage on, that
// bundle is instrumented (instrument-loader.js) and its interceptor (sandbox-interceptor.ts) sends the counters that
// moved to a `coverage` sink after every activation. This file (a Jest `setupFilesAfterEnv` module, so one instance
// per test file) gives every worker the test file creates in-process that sink, replay workers included: the
// branches of earlier turn revisions run only when replaying the committed histories. The sink adds the counters to
// whole istanbul records rebuilt from the set-up's template file; coverage-environment.ts folds them into the test
// file's coverage once the file is done. Workers in child processes stay unmeasured.
import { Worker, type InjectedSinks, type ReplayWorkerOptions, type WorkerOptions } from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';
import type { CoverageMapData, FileCoverageData } from 'istanbul-lib-coverage';
import { readFileSync } from 'node:fs';
import { addHits, type CoverageHits } from './coverage-hits';

/** Set by the global set-up to its template file when the workflow bundle is instrumented. */
export const workflowCoverageTemplatesVariable = 'TOLLGATE_TEST_WORKFLOW_COVERAGE_TEMPLATES';

/** Where a test file's workflow coverage waits for coverage-environment.ts (on the test file's global object). */
export const workflowCoverageGlobal = '__tollgateWorkflowCoverage__';

interface CoverageSinks extends Sinks {
  coverage: { add(hits: CoverageHits): void };
}

function installWorkflowCoverage(templatesFile: string): void {
  let templates: Record<string, FileCoverageData> | undefined;
  const summed: CoverageMapData = {};
  (globalThis as Record<string, unknown>)[workflowCoverageGlobal] = summed;
  const sinks: InjectedSinks<CoverageSinks> = {
    coverage: {
      add: {
        fn: (_workflowInfo, hits) => {
          templates ??= JSON.parse(readFileSync(templatesFile, 'utf8')) as Record<string, FileCoverageData>;
          addHits(summed, templates, hits);
        },
        callDuringReplay: true,
      },
    },
  };
  const withSinks = <T extends WorkerOptions | ReplayWorkerOptions>(options: T): T => ({
    ...options,
    sinks: { ...options.sinks, ...sinks },
  });
  const create = Worker.create.bind(Worker);
  const runReplayHistories = Worker.runReplayHistories.bind(Worker);
  // Workers keep the production default, one reusable V8 context: the instrumented counters are typed arrays, which
  // its freezing leaves writable (instrument-loader.js).
  Worker.create = (options) => create(withSinks(options));
  // Worker.runReplayHistory calls runReplayHistories.
  Worker.runReplayHistories = (options, histories) => runReplayHistories(withSinks(options), histories);
}

const templatesFile = process.env[workflowCoverageTemplatesVariable];
if (templatesFile) installWorkflowCoverage(templatesFile);
