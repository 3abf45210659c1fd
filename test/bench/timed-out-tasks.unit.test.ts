import { temporal } from '@temporalio/proto';
import { timedOutTasksOf } from '../../bench/timed-out-tasks';

// The burst's record of a workflow-task timeout (bench/timed-out-tasks.ts): which turn, what woke it, how long the
// worker held the task, and the history, so that a timeout can be traced after the bench's server is gone.
const { EventType, TimeoutType } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
/** A 64-bit number as the history's events carry it (the code under test reads it as String() and Number() do). */
const long = (value: number) => value as unknown as NonNullable<HistoryEvent['eventId']>;

const at = (ms: number) => ({ seconds: long(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 });
const event = (eventId: number, ms: number, fields: HistoryEvent): HistoryEvent => ({
  eventId: long(eventId),
  eventTime: at(ms),
  ...fields,
});

/** A turn whose workflow task after its model step was held 10 s by a worker, then ran again. */
const history: HistoryEvent[] = [
  event(1, 1_000, {
    eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
    workflowExecutionStartedEventAttributes: {},
  }),
  event(2, 1_001, {
    eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    workflowTaskScheduledEventAttributes: {},
  }),
  event(3, 1_002, {
    eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    workflowTaskStartedEventAttributes: { identity: 'worker-a' },
  }),
  event(4, 1_010, {
    eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    workflowTaskCompletedEventAttributes: { scheduledEventId: long(2) },
  }),
  event(5, 1_020, {
    eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
    activityTaskCompletedEventAttributes: { scheduledEventId: long(4) },
  }),
  event(6, 1_021, {
    eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    workflowTaskScheduledEventAttributes: {},
  }),
  event(7, 1_500, {
    eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    workflowTaskStartedEventAttributes: { identity: 'worker-b' },
  }),
  event(8, 11_500, {
    eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
    workflowTaskTimedOutEventAttributes: {
      scheduledEventId: long(6),
      startedEventId: long(7),
      timeoutType: TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE,
    },
  }),
];

describe('a burst turn whose workflow task timed out', () => {
  it('names the turn, the kind of timeout, what woke the task, who held it, for how long and until when', () => {
    const [task, ...more] = timedOutTasksOf('turn-7', history);
    expect(more).toEqual([]);
    expect(task).toMatchObject({
      workflowId: 'turn-7',
      timeout: 'START_TO_CLOSE',
      wokenBy: 'ACTIVITY_TASK_COMPLETED',
      heldMs: 10_000,
      timedOutAt: new Date(11_500).toISOString(),
      startedBy: 'worker-b',
    });
    expect(task!.events[0]).toBe('1 WORKFLOW_EXECUTION_STARTED +0 ms');
    expect(task!.events.at(-1)).toBe('8 WORKFLOW_TASK_TIMED_OUT +10500 ms');
  });

  it('records nothing for a turn without a timeout', () => {
    expect(timedOutTasksOf('turn-8', history.slice(0, 7))).toEqual([]);
  });
});
