import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** How much a workflow's history holds. */
export interface HistorySize {
  /** Events in the history. */
  events: number;
  /** The history's serialized (protobuf) size: what the server's 50 MB limit counts. */
  bytes: number;
  /** The largest single payload in the history (encoded): what the 2 MB payload limit counts. */
  largestPayloadBytes: number;
  /** The type of the event that holds it, e.g. `ACTIVITY_TASK_SCHEDULED`. */
  largestPayloadEvent: string;
  /** Workflow tasks completed: each is a round trip server → worker's workflow sandbox → server. */
  workflowTasks?: number;
  /** Activities scheduled (local activities are markers and not counted). */
  activities?: number;
  /**
   * Writes to the visibility store the history implies: the start, each search-attribute upsert or properties change,
   * and the close (a closed history). What a capacity plan sizes Elasticsearch or SQL visibility by.
   */
  visibilityWrites?: number;
}

/** Fetches a workflow's history and measures it. */
export async function historySizeOf(handle: WorkflowHandle): Promise<HistorySize> {
  const history = await handle.fetchHistory();
  let largestPayloadBytes = 0;
  let largestPayloadEvent = '';
  for (const event of history.events ?? []) {
    const largest = largestPayload(event);
    if (largest <= largestPayloadBytes) continue;
    largestPayloadBytes = largest;
    largestPayloadEvent = (temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? '').replace(/^EVENT_TYPE_/, '');
  }
  const events = history.events ?? [];
  return {
    events: events.length,
    workflowTasks: events.filter((event) => event.workflowTaskCompletedEventAttributes).length,
    activities: events.filter((event) => event.activityTaskScheduledEventAttributes).length,
    visibilityWrites: visibilityWritesOf(events),
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    largestPayloadBytes,
    largestPayloadEvent,
  };
}

/** Walks the decoded history for payloads (objects with `metadata` and `data` bytes) and returns the largest. */
function largestPayload(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  if (value instanceof Uint8Array) return 0;
  const record = value as Record<string, unknown>;
  let largest = 0;
  if (record.data instanceof Uint8Array && 'metadata' in record) {
    largest = temporal.api.common.v1.Payload.encode(record as temporal.api.common.v1.IPayload).finish().length;
  }
  for (const child of Object.values(record)) largest = Math.max(largest, largestPayload(child));
  return largest;
}

/** Visibility-store writes a history implies: start, search-attribute upserts, properties changes, close. */
export function visibilityWritesOf(events: readonly temporal.api.history.v1.IHistoryEvent[]): number {
  return events.filter(
    (event) =>
      event.workflowExecutionStartedEventAttributes ||
      event.upsertWorkflowSearchAttributesEventAttributes ||
      event.workflowPropertiesModifiedEventAttributes ||
      event.workflowExecutionCompletedEventAttributes ||
      event.workflowExecutionFailedEventAttributes ||
      event.workflowExecutionTimedOutEventAttributes ||
      event.workflowExecutionCanceledEventAttributes ||
      event.workflowExecutionTerminatedEventAttributes ||
      event.workflowExecutionContinuedAsNewEventAttributes,
  ).length;
}
