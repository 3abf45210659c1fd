import { temporal } from '@temporalio/proto';
import { millisecondsOf } from './wait-phases';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * A workflow task that timed out, as a turn's history tells it: so that a burst's timeout can be traced to its cause (a
 * long activation, a task that waited in the worker behind others, a turn evicted and replayed) after the bench's
 * server is gone.
 */
export interface TimedOutTask {
  workflowId: string;
  /** `START_TO_CLOSE` or `SCHEDULE_TO_START`. */
  timeout: string;
  /** The event that woke the turn for the task (the one before its scheduling), e.g. `ACTIVITY_TASK_COMPLETED`. */
  wokenBy: string;
  /** From the task's start (or, if it never started, its scheduling) to its timeout. */
  heldMs: number;
  /** When it timed out (ISO 8601), to set beside the worker's pauses (bench/stall-monitor.ts). */
  timedOutAt: string;
  /** The worker that started it. */
  startedBy?: string;
  /** The turn's whole history, an event a line: id, type, and milliseconds since the turn started. */
  events: string[];
}

/** The workflow tasks that timed out in one turn's history, each with where it came from. */
export function timedOutTasksOf(workflowId: string, events: readonly HistoryEvent[]): TimedOutTask[] {
  const byId = new Map(events.map((event) => [String(event.eventId), event]));
  const startedMs = events[0] ? millisecondsOf(events[0]) : 0;
  const timedOut = events.filter((event) => event.workflowTaskTimedOutEventAttributes);
  if (timedOut.length === 0) return [];
  const lines = events.map(
    (event) =>
      `${String(event.eventId)} ${eventTypeName(event.eventType)} +${Math.round(millisecondsOf(event) - startedMs)} ms`,
  );
  return timedOut.map((event) => {
    const attributes = event.workflowTaskTimedOutEventAttributes!;
    const scheduled = byId.get(String(attributes.scheduledEventId));
    const started = byId.get(String(attributes.startedEventId));
    const woken = scheduled ? events[events.indexOf(scheduled) - 1] : undefined;
    const identity = started?.workflowTaskStartedEventAttributes?.identity;
    return {
      workflowId,
      timeout: (temporal.api.enums.v1.TimeoutType[attributes.timeoutType ?? 0] ?? 'UNKNOWN').replace(
        'TIMEOUT_TYPE_',
        '',
      ),
      wokenBy: woken ? eventTypeName(woken.eventType) : 'none',
      heldMs: Math.round(millisecondsOf(event) - millisecondsOf(started ?? scheduled ?? event)),
      timedOutAt: new Date(millisecondsOf(event)).toISOString(),
      ...(identity && { startedBy: identity }),
      events: lines,
    };
  });
}

function eventTypeName(type: temporal.api.enums.v1.EventType | null | undefined): string {
  return (temporal.api.enums.v1.EventType[type ?? 0] ?? 'UNKNOWN').replace('EVENT_TYPE_', '');
}
