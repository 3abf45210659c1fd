// Workflow code coverage (`npm test -- --coverage`): Jest instruments what runs in its own module system, but
// workflow code runs from the bundle built in global-setup.ts, inside each worker's sandbox. With coverage on, that
// bundle is instrumented by `@temporalio/nyc-test-coverage`, whose interceptor sends the sandbox's counters to a
// `coverage` sink after every activation. This file (a Jest `setupFilesAfterEnv` module, so one instance per test
// file) gives every worker the test file creates in-process that sink, replay workers included: the branches of earlier
// turn revisions run only when replaying the committed histories. coverage-environment.ts folds what the sink
// gathered into the test file's coverage once the file is done. Workers in child processes stay unmeasured.
import { WorkflowCoverage } from '@temporalio/nyc-test-coverage';
import { Worker, type InjectedSinks, type ReplayWorkerOptions, type WorkerOptions } from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';
import { createCoverageMap, type CoverageMap, type CoverageMapData } from 'istanbul-lib-coverage';

/** Set by the global set-up when the workflow bundle is instrumented. */
export const workflowCoverageVariable = 'TOLLGATE_TEST_WORKFLOW_COVERAGE';

/** Where a test file's workflow coverage waits for coverage-environment.ts (on the test file's global object). */
export const workflowCoverageGlobal = '__tollgateWorkflowCoverage__';

interface CoverageSinks extends Sinks {
  coverage: { merge(coverage: CoverageMapData): void };
}

/**
 * The package's `WorkflowCoverage`, with two changes to its sink: counters are summed into one map as they arrive
 * (the package keeps every activation's full copy until the end, which runs to gigabytes over a test file), and
 * the sink is called during replay as well, so replayed histories count.
 */
class SummingWorkflowCoverage extends WorkflowCoverage {
  readonly summed: CoverageMap = createCoverageMap({});

  override get sinks(): InjectedSinks<CoverageSinks> {
    return {
      coverage: {
        merge: { fn: (_workflowInfo, coverage) => this.summed.merge(coverage), callDuringReplay: true },
      },
    };
  }
}

function installWorkflowCoverage(): void {
  const workflowCoverage = new SummingWorkflowCoverage();
  (globalThis as Record<string, unknown>)[workflowCoverageGlobal] = workflowCoverage.summed;
  const withSinks = <T extends WorkerOptions | ReplayWorkerOptions>(options: T): T => ({
    ...options,
    sinks: { ...options.sinks, ...workflowCoverage.sinks },
  });
  const create = Worker.create.bind(Worker);
  const runReplayHistories = Worker.runReplayHistories.bind(Worker);
  // The instrumented bundle in the reusable V8 context fails some workflow tasks ("Cannot assign to read only
  // property '12' of object": an istanbul counter object that ended up frozen), e.g. approval-rights.test.ts's
  // notice-attempts case. Live workers get a fresh context per workflow; plain `npm test` keeps the production
  // default. The replay test passes either way and is 6x slower without reuse, so replay keeps it.
  Worker.create = (options) => create({ ...withSinks(options), reuseV8Context: false });
  // Worker.runReplayHistory calls runReplayHistories.
  Worker.runReplayHistories = (options, histories) => runReplayHistories(withSinks(options), histories);
}

if (process.env[workflowCoverageVariable] === '1') installWorkflowCoverage();
