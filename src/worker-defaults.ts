import type { WorkerOptions } from '@temporalio/worker';

/**
 * Workflow tasks a Tollgate worker holds at once, where the SDK holds 40. Every workflow of a worker runs on one
 * thread (the SDK's reusable V8 context), so tasks held beyond the few that keep that thread busy only wait for it —
 * and a task's 10 s workflow-task timeout runs from when the worker took it. In a burst, 40 held tasks behind each
 * other timed out there; fewer leave the rest queued at the server, where they wait no worse.
 */
export const defaultMaxConcurrentWorkflowTaskExecutions = 10;

/**
 * How long a workflow task waits on the worker's sticky queue before Temporal hands it to any worker, where the SDK
 * waits 10 s. A task handed on is replayed from its whole history, which costs a busy worker more CPU than the task
 * itself: in a burst that made a busy worker busier (every task behind it timed out too). A worker that stops
 * cleanly hands its turns on at once, and Temporal stops sending tasks to the sticky queue of a worker that no longer
 * polls it; only the tasks already queued there when a worker dies wait this long.
 */
export const defaultStickyQueueScheduleToStartTimeout = '30s';

/**
 * Tollgate's defaults for `Worker.create`, under what the worker's owner passes (`workerOptions` of
 * `createTollgateWorker`): fewer workflow tasks held at once (not above the owner's `maxCachedWorkflows`, which the SDK
 * requires; none with the owner's own `tuner`, which the SDK does not allow beside it), and a longer sticky queue
 * timeout. docs/performance.md measures them.
 *
 * @example
 * Worker.create({ ...tollgateWorkerDefaults(options.workerOptions), ...options.workerOptions });
 */
export function tollgateWorkerDefaults(
  own: Partial<WorkerOptions> = {},
): Pick<WorkerOptions, 'maxConcurrentWorkflowTaskExecutions' | 'stickyQueueScheduleToStartTimeout'> {
  const cached = own.maxCachedWorkflows;
  const executions =
    cached === undefined || cached === 0
      ? defaultMaxConcurrentWorkflowTaskExecutions
      : Math.max(2, Math.min(defaultMaxConcurrentWorkflowTaskExecutions, cached));
  return {
    ...(own.tuner === undefined && { maxConcurrentWorkflowTaskExecutions: executions }),
    stickyQueueScheduleToStartTimeout: defaultStickyQueueScheduleToStartTimeout,
  };
}
