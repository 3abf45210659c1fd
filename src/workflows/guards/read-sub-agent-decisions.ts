import type { RecordedDecision } from '../../protocol';
import { decisionErrorTypes, type SubAgentDecisionsAnswer, type SubAgentDecisionsRequest } from '../definitions';
import { editedDecisionBatchPayloadLimits, inspectPayload, toolDataPayloadLimits } from './bounded-payload';

/** Most decisions one answer may carry (as many as one update). */
const maxRecorded = 100;
/** Characters of a refusal's message kept. */
const maxMessageLength = 4000;
const knownErrorTypes = new Set<string>(Object.values(decisionErrorTypes));

/**
 * The turns a sub-agent may answer: its ancestors, read off its own workflow id (`<parent id>/<agent>-<n>`, one segment
 * per level of its `path`), nearest first. A top turn (depth 0) has none. The top turn's own id may hold `/`; only
 * `depth` segments are taken off.
 *
 * @example
 * ancestorsOf('turn-1/writer-1/reader-1', 2); // ['turn-1/writer-1', 'turn-1']
 */
export function ancestorsOf(workflowId: string, depth: number): string[] {
  const ancestors: string[] = [];
  let id = workflowId;
  for (let level = 0; level < depth; level += 1) {
    const cut = id.lastIndexOf('/');
    if (cut <= 0) break;
    id = id.slice(0, cut);
    ancestors.push(id);
  }
  return ancestors;
}

/**
 * Reads a `subAgentDecisions` signal as only an ancestor turn sends it: exactly `{ requestId, replyTo, responses }`,
 * bounded, with `replyTo` one of `ancestors`, so a sub-agent answers no other workflow. `responses` is left for the
 * update's own reader (`readDecisionBatch`). Anything else is refused, without throwing, with a reason.
 */
export function readSubAgentDecisionsRequest(
  payload: unknown,
  ancestors: readonly string[],
): SubAgentDecisionsRequest | { invalid: string } {
  const inspection = inspectPayload(payload, editedDecisionBatchPayloadLimits);
  if (!inspection.bounded) return { invalid: `the request is ${inspection.reason}` };
  if (!isRecord(payload)) return { invalid: 'expected { requestId, replyTo, responses }' };
  const keys = Object.keys(payload);
  if (keys.length !== 3 || !('responses' in payload)) {
    return { invalid: 'expected exactly { requestId, replyTo, responses }' };
  }
  const { requestId, replyTo, responses } = payload;
  if (!isText(requestId, 100)) return { invalid: 'requestId must be a short string' };
  if (typeof replyTo !== 'string' || !ancestors.includes(replyTo)) {
    return { invalid: 'replyTo must be one of the turns above this sub-agent' };
  }
  return { requestId, replyTo, responses };
}

/**
 * Reads a `subAgentDecisionsAnswer` signal: `{ requestId, recorded: [...] }` or `{ requestId, refused: { message,
 * type } }`, bounded, each recorded decision naming its approval and outcome, a refusal's type one of the update's
 * error types. Anything else is refused, without throwing, with a reason.
 */
export function readSubAgentDecisionsAnswer(payload: unknown): SubAgentDecisionsAnswer | { invalid: string } {
  const inspection = inspectPayload(payload, toolDataPayloadLimits);
  if (!inspection.bounded) return { invalid: `the answer is ${inspection.reason}` };
  if (!isRecord(payload) || Object.keys(payload).length !== 2 || !isText(payload.requestId, 100)) {
    return { invalid: 'expected { requestId, recorded } or { requestId, refused }' };
  }
  const { requestId, recorded, refused } = payload;
  if (recorded !== undefined) {
    if (!Array.isArray(recorded) || recorded.length === 0 || recorded.length > maxRecorded) {
      return { invalid: `recorded must be a list of 1 to ${maxRecorded} decisions` };
    }
    const wellFormed = recorded.every(
      (entry) =>
        isRecord(entry) && isText(entry.approvalId, 1000) && isText(entry.decision, 40) && isText(entry.outcome, 40),
    );
    if (!wellFormed) return { invalid: 'each recorded decision must name its approvalId, decision and outcome' };
    return { requestId, recorded: recorded as RecordedDecision[] };
  }
  if (!isRecord(refused) || Object.keys(refused).length !== 2) {
    return { invalid: 'expected { requestId, recorded } or { requestId, refused }' };
  }
  const { message, type } = refused;
  if (typeof message !== 'string' || typeof type !== 'string' || !knownErrorTypes.has(type)) {
    return { invalid: "refused must be { message, type } with one of the update's error types" };
  }
  return { requestId, refused: { message: message.slice(0, maxMessageLength), type } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= maxLength;
}
