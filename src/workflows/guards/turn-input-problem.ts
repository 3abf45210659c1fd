import { inspectPayload, type PayloadLimits } from './bounded-payload';

/**
 * Limits for a turn's input before workflow code reads it: far beyond what a real history nests (a conversation's
 * messages are bounded at 64 levels when they are sent), and within what the SDK's own serialisation survives
 * when the input travels on to an activity.
 */
export const turnInputPayloadLimits: PayloadLimits = {
  maxDepth: 256,
  maxNodes: 1_000_000,
  maxStringLength: 10_000_000,
};

/**
 * Why a turn's input cannot be read by workflow code, or undefined when it can. Only the shape workflow code
 * itself walks is checked here; the model step checks the rest against the schema and fails the turn clearly.
 */
export function turnInputProblem(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'the input must be an object';
  const inspection = inspectPayload(input, turnInputPayloadLimits);
  if (!inspection.bounded) return `the input is ${inspection.reason}`;
  const { messages } = input as { messages?: unknown };
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must be a list of at least one message';
  const index = messages.findIndex(
    (message) =>
      typeof message !== 'object' ||
      message === null ||
      typeof (message as { role?: unknown }).role !== 'string' ||
      !(
        typeof (message as { content?: unknown }).content === 'string' ||
        (Array.isArray((message as { content?: unknown }).content) &&
          ((message as { content: unknown[] }).content as unknown[]).every(
            (part) => typeof part === 'object' && part !== null,
          ))
      ),
  );
  return index >= 0 ? `messages[${index}] must be { role, content } with text or a list of parts` : undefined;
}
