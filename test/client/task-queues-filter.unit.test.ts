import { describeTaskQueues, taskQueuesFilter } from '../../src/client/task-queues-filter';
import { temporalSettingsFromEnvironment } from '../../src/client/temporal-settings';

describe('taskQueuesFilter', () => {
  it('keeps the turns of one queue, or of any of several', () => {
    expect(taskQueuesFilter(['tollgate'])).toBe("TaskQueue = 'tollgate'");
    expect(taskQueuesFilter(['tollgate', 'refunds'])).toBe("(TaskQueue = 'tollgate' OR TaskQueue = 'refunds')");
  });

  it('refuses a queue name a visibility query cannot carry, rather than escaping it', () => {
    expect(() => taskQueuesFilter(['tollgate', "x' OR 1=1"])).toThrow(/task queue "x' OR 1=1" holds characters/);
    expect(() => taskQueuesFilter([])).toThrow(/No task queue/);
  });

  it('names the queues for start-up lines and empty lists', () => {
    expect(describeTaskQueues(['tollgate'])).toBe('task queue "tollgate"');
    expect(describeTaskQueues(['tollgate', 'refunds'])).toBe('task queues "tollgate", "refunds"');
  });
});

describe('temporalSettingsFromEnvironment', () => {
  it('watches TOLLGATE_TASK_QUEUES besides the queue turns start on, each once', () => {
    const settings = temporalSettingsFromEnvironment({
      TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
      TOLLGATE_TASK_QUEUE: 'tollgate',
      TOLLGATE_TASK_QUEUES: 'refunds, tollgate,,billing',
    });
    expect(settings.taskQueue).toBe('tollgate');
    expect(settings.taskQueues).toEqual(['tollgate', 'refunds', 'billing']);
    expect(
      temporalSettingsFromEnvironment({ TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' }).taskQueues,
    ).toBeUndefined();
  });
});
