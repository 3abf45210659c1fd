import { inspectPayload } from './bounded-payload';
import { turnInputPayloadLimits } from './turn-input-problem';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isListOfObjects = (value: unknown): boolean => Array.isArray(value) && value.every(isObject);

/**
 * Why a conversation's input cannot be read by workflow code, or undefined when it can: the fields it walks
 * (`transcript`, `history`, `recent`, `queued`) must have their shapes, and the whole is bounded as a turn's input.
 */
export function conversationInputProblem(input: unknown): string | undefined {
  if (input === undefined) return undefined;
  if (!isObject(input)) return 'the input must be an object';
  const inspection = inspectPayload(input, turnInputPayloadLimits);
  if (!inspection.bounded) return `the input is ${inspection.reason}`;
  const { transcript, history, recent, queued, turn, runningTurn } = input;
  if (transcript !== undefined && !(isObject(transcript) && isListOfObjects(transcript.tail))) {
    return 'transcript must be { head?, tail: [messages] }';
  }
  for (const [name, list] of [
    ['history', history],
    ['recent', recent],
    ['queued', queued],
  ] as const) {
    if (list !== undefined && !isListOfObjects(list)) return `${name} must be a list of messages`;
  }
  if (turn !== undefined && !isObject(turn)) return 'turn must be an object of turn settings';
  if (runningTurn !== undefined && !(isObject(runningTurn) && typeof runningTurn.turnId === 'string')) {
    return 'runningTurn must name a turn';
  }
  return undefined;
}
