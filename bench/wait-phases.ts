import type { temporal } from '@temporalio/proto';

/** Where a turn's time went from its start until it waited for its decision, read from its history. */
export interface WaitPhases {
  /** From the start event to the last workflow task completed before the decision arrived (ms). */
  untilWaitingMs: number;
  /** Workflow tasks completed before the decision, and their time from scheduled to completed (ms). */
  workflowTasks: number;
  workflowTaskMs: number;
  /** Activities completed before the decision, and their time from scheduled to completed (ms). */
  activities: number;
  activityMs: number;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function millisecondsOf(event: HistoryEvent): number {
  const time = event.eventTime;
  return Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;
}

/**
 * The phases before the first decision (a signal or an accepted update) in a history: the bare workflow's single
 * workflow task against a turn's workflow tasks and model step, so the start → request figure shows what it is made of.
 */
export function waitPhasesOf(events: readonly HistoryEvent[]): WaitPhases {
  const first = events[0];
  const phases: WaitPhases = { untilWaitingMs: 0, workflowTasks: 0, workflowTaskMs: 0, activities: 0, activityMs: 0 };
  if (!first) return phases;
  const started = millisecondsOf(first);
  const byId = new Map(events.map((event) => [String(event.eventId), event]));
  // The last workflow task counted, so that the one an update arrived in can be taken back.
  let lastTask: { ms: number; untilWaitingMs: number } | undefined;
  for (const [index, event] of events.entries()) {
    if (event.workflowExecutionSignaledEventAttributes) break;
    if (event.workflowExecutionUpdateAcceptedEventAttributes) {
      // An update is accepted by a workflow task of its own, completed just before: that task is the decision's.
      if (lastTask && events[index - 1]?.workflowTaskCompletedEventAttributes) {
        phases.workflowTasks--;
        phases.workflowTaskMs -= lastTask.ms;
        phases.untilWaitingMs = lastTask.untilWaitingMs;
      }
      break;
    }
    const taskDone = event.workflowTaskCompletedEventAttributes;
    if (taskDone) {
      const scheduled = byId.get(String(taskDone.scheduledEventId));
      const ms = scheduled ? millisecondsOf(event) - millisecondsOf(scheduled) : 0;
      lastTask = { ms, untilWaitingMs: phases.untilWaitingMs };
      phases.workflowTasks++;
      phases.workflowTaskMs += ms;
      phases.untilWaitingMs = millisecondsOf(event) - started;
    }
    const activityDone = event.activityTaskCompletedEventAttributes;
    if (activityDone) {
      const scheduled = byId.get(String(activityDone.scheduledEventId));
      phases.activities++;
      if (scheduled) phases.activityMs += millisecondsOf(event) - millisecondsOf(scheduled);
    }
  }
  return phases;
}
