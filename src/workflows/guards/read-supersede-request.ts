import { inspectPayload, signalPayloadLimits } from './bounded-payload';
import { textOfValue } from './text-of-value';

/** Characters of a supersede reason kept: the model reads it with every denied call. */
const maxReasonLength = 500;

/**
 * Reads a `supersedeTurn` signal, `{ reason }`, without throwing on what a sender wrote. A payload that is
 * not an object, or whose reason is too deep or large to read or cannot be read as text (`{"toString": "x"}`), is
 * invalid; any other reason is read as text, as turns have always read it (so a history that superseded a turn
 * replays the same).
 */
export function readSupersedeRequest(payload: unknown): { reason: string } | { invalid: string } {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { invalid: 'a supersede request must be an object { reason }' };
  }
  const reason = (payload as { reason?: unknown }).reason;
  if (typeof reason === 'string') return { reason: reason.slice(0, maxReasonLength) };
  if (typeof reason === 'object' && reason !== null) {
    // Arrays are read item by item, recursively: only a bounded one is safe to turn into text.
    const inspection = inspectPayload(reason, signalPayloadLimits);
    if (!inspection.bounded) return { invalid: `the reason is ${inspection.reason}` };
  }
  const text = textOfValue(reason);
  if (text === undefined) return { invalid: 'the reason must be text, and this one cannot be read as text' };
  return { reason: text.slice(0, maxReasonLength) };
}
