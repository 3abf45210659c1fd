import { parseBenchOptions, UsageError } from '../../bench/bench-options';
import { groupOf, summariseProfiles } from '../../bench/profile-summary';
import { mediansOf } from '../../bench/stats';
import { decisionTimelineOf, startPhasesOf, waitPhasesOf } from '../../bench/wait-phases';

const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });

describe('bench options for the scale-out and content-store figures', () => {
  it('runs every figure by default, scale-out bursts of at most 500 turns and store turns of 20 calls', () => {
    const options = parseBenchOptions(['--turns', '1000']);
    expect([...options.only]).toEqual(expect.arrayContaining(['scale', 'store']));
    expect(options.scaleTurns).toBe(500);
    expect(options.storeSteps).toBe(20);
    expect(parseBenchOptions(['--turns', '50']).scaleTurns).toBe(50);
  });

  it('takes --scale-turns and --store-steps, and refuses a bad count', () => {
    const options = parseBenchOptions(['--only', 'scale,store', '--scale-turns', '80', '--store-steps=7']);
    expect([...options.only]).toEqual(['scale', 'store']);
    expect(options.scaleTurns).toBe(80);
    expect(options.storeSteps).toBe(7);
    expect(() => parseBenchOptions(['--store-steps', '0'])).toThrow(UsageError);
    expect(() => parseBenchOptions(['--only', 'scales'])).toThrow('Unknown figure "scales".');
  });
});

describe('waitPhasesOf', () => {
  it('splits start → waiting into workflow tasks and activities, up to the decision', () => {
    const events = [
      { eventId: 1, eventTime: at(0), workflowExecutionStartedEventAttributes: {} },
      { eventId: 2, eventTime: at(1), workflowTaskScheduledEventAttributes: {} },
      { eventId: 3, eventTime: at(5), workflowTaskStartedEventAttributes: {} },
      { eventId: 4, eventTime: at(15), workflowTaskCompletedEventAttributes: { scheduledEventId: 2 } },
      { eventId: 5, eventTime: at(15), activityTaskScheduledEventAttributes: {} },
      { eventId: 6, eventTime: at(32), activityTaskCompletedEventAttributes: { scheduledEventId: 5 } },
      { eventId: 7, eventTime: at(33), workflowTaskScheduledEventAttributes: {} },
      { eventId: 8, eventTime: at(45), workflowTaskCompletedEventAttributes: { scheduledEventId: 7 } },
      // The decision by update: its own workflow task accepts it; that task is not part of the wait.
      { eventId: 9, eventTime: at(900), workflowTaskScheduledEventAttributes: {} },
      { eventId: 10, eventTime: at(901), workflowTaskStartedEventAttributes: {} },
      { eventId: 11, eventTime: at(910), workflowTaskCompletedEventAttributes: { scheduledEventId: 9 } },
      { eventId: 12, eventTime: at(910), workflowExecutionUpdateAcceptedEventAttributes: {} },
      { eventId: 13, eventTime: at(911), workflowTaskScheduledEventAttributes: {} },
    ];
    expect(waitPhasesOf(events as unknown as Parameters<typeof waitPhasesOf>[0])).toEqual({
      untilWaitingMs: 45,
      workflowTasks: 2,
      workflowTaskMs: 14 + 12,
      activities: 1,
      activityMs: 17,
    });
  });

  it('stops at a signal, counting every task before it', () => {
    const events = [
      { eventId: 1, eventTime: at(0), workflowExecutionStartedEventAttributes: {} },
      { eventId: 2, eventTime: at(2), workflowTaskScheduledEventAttributes: {} },
      { eventId: 3, eventTime: at(20), workflowTaskCompletedEventAttributes: { scheduledEventId: 2 } },
      { eventId: 4, eventTime: at(500), workflowExecutionSignaledEventAttributes: {} },
      { eventId: 5, eventTime: at(501), workflowTaskScheduledEventAttributes: {} },
      { eventId: 6, eventTime: at(510), workflowTaskCompletedEventAttributes: { scheduledEventId: 5 } },
    ];
    expect(waitPhasesOf(events as unknown as Parameters<typeof waitPhasesOf>[0])).toMatchObject({
      untilWaitingMs: 20,
      workflowTasks: 1,
      workflowTaskMs: 18,
    });
  });

  it('has nothing to say of an empty history', () => {
    expect(waitPhasesOf([])).toEqual({
      untilWaitingMs: 0,
      workflowTasks: 0,
      workflowTaskMs: 0,
      activities: 0,
      activityMs: 0,
    });
  });
});

describe('startPhasesOf', () => {
  it('splits the workflow tasks and activities before the decision into waiting for the worker and running', () => {
    const events = [
      { eventId: 1, eventTime: at(0), workflowExecutionStartedEventAttributes: {} },
      { eventId: 2, eventTime: at(1), workflowTaskScheduledEventAttributes: {} },
      { eventId: 3, eventTime: at(5), workflowTaskStartedEventAttributes: {} },
      {
        eventId: 4,
        eventTime: at(15),
        workflowTaskCompletedEventAttributes: { scheduledEventId: 2, startedEventId: 3 },
      },
      { eventId: 5, eventTime: at(15), activityTaskScheduledEventAttributes: {} },
      { eventId: 6, eventTime: at(20), activityTaskStartedEventAttributes: { scheduledEventId: 5 } },
      {
        eventId: 7,
        eventTime: at(32),
        activityTaskCompletedEventAttributes: { scheduledEventId: 5, startedEventId: 6 },
      },
      { eventId: 8, eventTime: at(33), workflowTaskScheduledEventAttributes: {} },
      { eventId: 9, eventTime: at(40), workflowTaskStartedEventAttributes: {} },
      {
        eventId: 10,
        eventTime: at(45),
        workflowTaskCompletedEventAttributes: { scheduledEventId: 8, startedEventId: 9 },
      },
      // The decision's own workflow task, then the accepted update: not part of the start.
      { eventId: 11, eventTime: at(900), workflowTaskScheduledEventAttributes: {} },
      { eventId: 12, eventTime: at(901), workflowTaskStartedEventAttributes: {} },
      {
        eventId: 13,
        eventTime: at(910),
        workflowTaskCompletedEventAttributes: { scheduledEventId: 11, startedEventId: 12 },
      },
      { eventId: 14, eventTime: at(910), workflowExecutionUpdateAcceptedEventAttributes: {} },
    ];
    expect(startPhasesOf(events as unknown as Parameters<typeof startPhasesOf>[0])).toEqual({
      untilWaitingMs: 45,
      tasksQueuedMs: 4 + 7,
      tasksRunMs: 10 + 5,
      activitiesQueuedMs: 5,
      activitiesRunMs: 12,
    });
  });
});

describe('decisionTimelineOf', () => {
  // One turn decided by update at 1,000 ms (the client's clock, the same machine's as the server's) whose tool stamped
  // 1,030 ms: the update's workflow task was scheduled at 1,004, started at 1,006, completed at 1,020.
  const events = [
    { eventId: 1, eventTime: at(0), workflowExecutionStartedEventAttributes: {} },
    { eventId: 9, eventTime: at(1_004), workflowTaskScheduledEventAttributes: {} },
    { eventId: 10, eventTime: at(1_006), workflowTaskStartedEventAttributes: {} },
    {
      eventId: 11,
      eventTime: at(1_020),
      workflowTaskCompletedEventAttributes: { scheduledEventId: 9, startedEventId: 10 },
    },
    { eventId: 12, eventTime: at(1_020), workflowExecutionUpdateAcceptedEventAttributes: {} },
    { eventId: 13, eventTime: at(1_020), workflowExecutionUpdateCompletedEventAttributes: {} },
    { eventId: 14, eventTime: at(1_020), activityTaskScheduledEventAttributes: {} },
  ];
  type Events = Parameters<typeof decisionTimelineOf>[0];

  it("splits decision → tool start into the server's part, the decision's workflow task and the tool's dispatch", () => {
    expect(decisionTimelineOf(events as unknown as Events, 1_000, 1_030)).toEqual({
      untilTaskScheduledMs: 4,
      taskQueuedMs: 2,
      taskRunMs: 14,
      untilToolMs: 10,
    });
  });

  it('has nothing to say of a turn not decided, or whose decision scheduled no activity', () => {
    expect(decisionTimelineOf(events.slice(0, 4) as unknown as Events, 1_000, 1_030)).toBeUndefined();
    expect(decisionTimelineOf(events.slice(0, 6) as unknown as Events, 1_000, 1_030)).toBeUndefined();
  });
});

describe('mediansOf', () => {
  it("gives each field's median over the records, and nothing for no records", () => {
    const phases = [
      { queuedMs: 1, runMs: 30 },
      { queuedMs: 9, runMs: 10 },
      { queuedMs: 4, runMs: 20 },
    ];
    expect(mediansOf(phases)).toEqual({ queuedMs: 4, runMs: 20 });
    expect(mediansOf([])).toEqual({});
  });
});

describe('profile summary', () => {
  it('groups a call frame by package, Tollgate folder, Node area or engine entry', () => {
    expect(groupOf('file:///work/main/node_modules/openai/core.js', 'makeRequest')).toBe('openai');
    expect(groupOf('file:///x/node_modules/@temporalio/worker/lib/worker.js', 'run')).toBe('@temporalio/worker');
    expect(groupOf('file:///work/main/src/activities/turn/model-step.ts', 'runModelStep')).toBe('src/activities');
    expect(groupOf('node:internal/streams/readable', 'read')).toBe('node:internal/streams');
    expect(groupOf('', '(garbage collector)')).toBe('(garbage collector)');
  });

  it('adds self time per group over the samples', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '' } },
        { id: 2, callFrame: { functionName: 'create', url: 'file:///a/node_modules/openai/index.js' } },
        { id: 3, callFrame: { functionName: 'append', url: 'file:///a/src/store/transcript.ts' } },
      ],
      startTime: 10_000,
      samples: [2, 3, 2],
      timeDeltas: [1000, 2000, 3000],
    };
    expect(Object.fromEntries(summariseProfiles([profile]))).toEqual({ openai: 4, 'src/store': 2 });
    // The samples at 11,000, 13,000 and 16,000 µs: a window keeps only the ones inside it.
    expect(Object.fromEntries(summariseProfiles([profile], [{ from: 12_000, to: 14_000 }]))).toEqual({
      'src/store': 2,
    });
  });
});
