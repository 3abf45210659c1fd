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

/** When an event happened, in milliseconds since the epoch. */
export function millisecondsOf(event: HistoryEvent): number {
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

/**
 * Where a decision's time went until its tool's activity started, read from its history: the workflow task that took
 * the decision, waiting to be picked up (scheduled → started: the worker's workflow thread was busy) and running
 * (started → completed), then the tool's activity waiting for a worker slot (scheduled → started). Undefined when the
 * history holds no decided tool.
 */
export interface DecisionPhases {
  /** The decision's workflow task, scheduled → started (ms). */
  taskQueuedMs: number;
  /** That workflow task, started → completed (ms). */
  taskRunMs: number;
  /** The tool's activity, scheduled → started (ms). */
  activityQueuedMs: number;
}

/**
 * The phases between the decision and the start of the first activity after it (the tool's, alone or with the next
 * model step) in a history with one decision.
 */
export function decisionPhasesOf(events: readonly HistoryEvent[]): DecisionPhases | undefined {
  const task = decisionTaskOf(events);
  if (!task) return undefined;
  const activityStarted = events.find(
    (event) =>
      String(event.activityTaskStartedEventAttributes?.scheduledEventId) === String(task.activityScheduled.eventId),
  );
  if (!activityStarted) return undefined;
  return {
    taskQueuedMs: millisecondsOf(task.started) - millisecondsOf(task.scheduled),
    taskRunMs: millisecondsOf(task.completed) - millisecondsOf(task.started),
    activityQueuedMs: millisecondsOf(activityStarted) - millisecondsOf(task.activityScheduled),
  };
}

/**
 * A decision's way to its tool with nothing else going on, on one machine's clock: the client's send and the tool's
 * own stamp set around the history's events of the workflow task that took the decision.
 */
export interface DecisionTimeline {
  /** From the client's send to the server scheduling the workflow task that takes the decision (ms). */
  untilTaskScheduledMs: number;
  /** That workflow task, scheduled → started: the server's dispatch to the worker (ms). */
  taskQueuedMs: number;
  /** That workflow task, started → completed: the worker's activation and the task's completion (ms). */
  taskRunMs: number;
  /** From that task's completion to the tool's own stamp: the activity's dispatch and what runs before the tool (ms). */
  untilToolMs: number;
}

/** The {@link DecisionTimeline} of a history with one decision, sent at `sentAtMs` and whose tool began at `toolAtMs`. */
export function decisionTimelineOf(
  events: readonly HistoryEvent[],
  sentAtMs: number,
  toolAtMs: number,
): DecisionTimeline | undefined {
  const task = decisionTaskOf(events);
  if (!task) return undefined;
  return {
    untilTaskScheduledMs: millisecondsOf(task.scheduled) - sentAtMs,
    taskQueuedMs: millisecondsOf(task.started) - millisecondsOf(task.scheduled),
    taskRunMs: millisecondsOf(task.completed) - millisecondsOf(task.started),
    untilToolMs: toolAtMs - millisecondsOf(task.completed),
  };
}

/** The workflow task that scheduled the first activity after the decision, and that activity's scheduling. */
function decisionTaskOf(events: readonly HistoryEvent[]) {
  const decided = events.findIndex(
    (event) => event.workflowExecutionSignaledEventAttributes || event.workflowExecutionUpdateAcceptedEventAttributes,
  );
  if (decided < 0) return undefined;
  const byId = new Map(events.map((event) => [String(event.eventId), event]));
  const scheduledIndex = events.findIndex(
    (event, index) => index > decided && event.activityTaskScheduledEventAttributes,
  );
  const activityScheduled = events[scheduledIndex];
  if (!activityScheduled) return undefined;
  // The workflow task that scheduled the tool: the last one completed before it.
  const completed = events
    .slice(0, scheduledIndex)
    .reverse()
    .find((event) => event.workflowTaskCompletedEventAttributes);
  const attributes = completed?.workflowTaskCompletedEventAttributes;
  const scheduled = byId.get(String(attributes?.scheduledEventId));
  const started = byId.get(String(attributes?.startedEventId));
  if (!completed || !scheduled || !started) return undefined;
  return { scheduled, started, completed, activityScheduled };
}

/**
 * Where a turn's time went from its start until it waited for its decision, split into waiting for the worker and
 * running: its workflow tasks (scheduled → started, started → completed) and activities (the same), summed over those
 * before the first decision. In a burst of starts the queued parts are time spent behind other turns.
 */
export interface StartPhases {
  /** From the start event to the last workflow task completed before the decision (ms): waiting in history. */
  untilWaitingMs: number;
  tasksQueuedMs: number;
  tasksRunMs: number;
  activitiesQueuedMs: number;
  activitiesRunMs: number;
}

/** The {@link StartPhases} of a history (a decision's own workflow task is not counted). */
export function startPhasesOf(events: readonly HistoryEvent[]): StartPhases {
  const byId = new Map(events.map((event) => [String(event.eventId), event]));
  const phases: StartPhases = {
    untilWaitingMs: waitPhasesOf(events).untilWaitingMs,
    tasksQueuedMs: 0,
    tasksRunMs: 0,
    activitiesQueuedMs: 0,
    activitiesRunMs: 0,
  };
  const since = (earlier: HistoryEvent | undefined, later: HistoryEvent) =>
    earlier ? millisecondsOf(later) - millisecondsOf(earlier) : 0;
  for (const [index, event] of events.entries()) {
    if (event.workflowExecutionSignaledEventAttributes) break;
    // The task before an accepted update is the decision's own: stop before it.
    if (events[index + 1]?.workflowExecutionUpdateAcceptedEventAttributes) break;
    const task = event.workflowTaskCompletedEventAttributes;
    if (task) {
      const started = byId.get(String(task.startedEventId));
      phases.tasksQueuedMs += started ? since(byId.get(String(task.scheduledEventId)), started) : 0;
      phases.tasksRunMs += since(started, event);
    }
    const activity = event.activityTaskCompletedEventAttributes;
    if (activity) {
      const started = byId.get(String(activity.startedEventId));
      phases.activitiesQueuedMs += started ? since(byId.get(String(activity.scheduledEventId)), started) : 0;
      phases.activitiesRunMs += since(started, event);
    }
  }
  return phases;
}
