// Workflow code (bundled into every bench worker's workflows with `BENCH_WORKER_FIRST_TASKS=<path>`): tells the
// worker, through a sink, each time a run's workflow function starts — its first workflow task, or that task again
// after a timeout or an eviction. bench/worker-process.ts writes when that activation was done, so that a timed-out
// first task can be told apart: done at once (the worker's answer never reached the server) or only at the retry
// (the task never reached the workflow code).
import { proxySinks, workflowInfo, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** The sink this interceptor calls. */
export interface FirstActivationSinks extends Sinks {
  benchFirstActivations: {
    /** The run's workflow function starts; `historyLength` is how many events its history had then. */
    started(historyLength: number): void;
  };
}

const { benchFirstActivations } = proxySinks<FirstActivationSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute(input, next) {
        benchFirstActivations.started(workflowInfo().historyLength);
        return next(input);
      },
    },
  ],
});
