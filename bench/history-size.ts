import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** How much a workflow's history holds. */
export interface HistorySize {
  /** Events in the history. */
  events: number;
  /** The history's serialized (protobuf) size: what the server's 50 MB limit counts. */
  bytes: number;
  /** The largest single payload's data in the history: what the 2 MB payload limit counts. */
  largestPayloadBytes: number;
}

/** Fetches a workflow's history and measures it. */
export async function historySizeOf(handle: WorkflowHandle): Promise<HistorySize> {
  const history = await handle.fetchHistory();
  return {
    events: history.events?.length ?? 0,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    largestPayloadBytes: largestPayload(history),
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
