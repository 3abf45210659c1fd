import {
  defaultMaxConcurrentWorkflowTaskExecutions,
  defaultStickyQueueScheduleToStartTimeout,
  tollgateWorkerDefaults,
} from '../src/worker-defaults';

describe('tollgateWorkerDefaults', () => {
  it('holds fewer workflow tasks at once than the SDK and waits longer on the sticky queue', () => {
    expect(tollgateWorkerDefaults()).toEqual({
      maxConcurrentWorkflowTaskExecutions: defaultMaxConcurrentWorkflowTaskExecutions,
      stickyQueueScheduleToStartTimeout: defaultStickyQueueScheduleToStartTimeout,
    });
    expect(defaultMaxConcurrentWorkflowTaskExecutions).toBeLessThan(40);
  });

  it("stays within the owner's cache, as the SDK requires, and leaves the owner's tuner alone", () => {
    expect(tollgateWorkerDefaults({ maxCachedWorkflows: 4 }).maxConcurrentWorkflowTaskExecutions).toBe(4);
    expect(tollgateWorkerDefaults({ maxCachedWorkflows: 1 }).maxConcurrentWorkflowTaskExecutions).toBe(2);
    expect(tollgateWorkerDefaults({ maxCachedWorkflows: 0 }).maxConcurrentWorkflowTaskExecutions).toBe(
      defaultMaxConcurrentWorkflowTaskExecutions,
    );
    expect(tollgateWorkerDefaults({ maxCachedWorkflows: 600 }).maxConcurrentWorkflowTaskExecutions).toBe(
      defaultMaxConcurrentWorkflowTaskExecutions,
    );
    const tuner = {} as NonNullable<Parameters<typeof tollgateWorkerDefaults>[0]>['tuner'];
    expect(tollgateWorkerDefaults({ tuner })).not.toHaveProperty('maxConcurrentWorkflowTaskExecutions');
  });
});
