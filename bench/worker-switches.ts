import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * Workflow tasks a turn's history shows started by another worker than its previous workflow task: the turn moved to a
 * worker that did not have it cached, and was replayed there from its history. With one worker process this is 0;
 * with two it is what the second worker costs in replays (a task that missed its sticky queue, or a first task and a
 * later one taken by different workers from the normal queue). Activities are not counted: any worker may run them.
 */
export function workerSwitchesOf(events: readonly HistoryEvent[]): number {
  let previous: string | undefined;
  let switches = 0;
  for (const event of events) {
    const identity = event.workflowTaskStartedEventAttributes?.identity;
    if (identity === undefined || identity === null) continue;
    if (previous !== undefined && identity !== previous) switches++;
    previous = identity;
  }
  return switches;
}
