import { formatBytes, type AgentTurnInput, type ModelMessage } from '../protocol';

/**
 * How much of a turn's input travels inline, in the workflow's input. Temporal refuses a payload over 2 MB (and a
 * gRPC message over 4 MB), and the first model step's input carries the same messages again, so the inline part
 * stays well below that; earlier messages go to the content store as the turn's `transcript`, as a conversation
 * passes its history.
 */
export const turnInputLimits = {
  /** Bytes of the workflow input (messages and settings, as JSON) sent inline. */
  inlineBytes: 1024 * 1024,
} as const;

/** A turn input too large to start, even with its earlier messages stored: the message names the limit. */
export class TurnInputTooLargeError extends Error {
  override readonly name = 'TurnInputTooLarge';
}

/** True for a {@link TurnInputTooLargeError}, from any realm. */
export function isTurnInputTooLargeError(error: unknown): error is TurnInputTooLargeError {
  return typeof error === 'object' && error !== null && (error as Error).name === 'TurnInputTooLarge';
}

/**
 * How a turn's input fits Temporal's payload limit: `inline` when it fits as it is; otherwise the messages before the
 * last user message are `stored` (in the content store, as a transcript) and the rest stays inline — the last user
 * message and what follows it, which is also all a halted turn's continuation needs to carry inline. Throws a
 * {@link TurnInputTooLargeError} when even that is too large.
 *
 * @example
 * const plan = fitTurnInput(input);
 * if (plan.kind === 'split') input = { ...input, messages: plan.inline, transcript: await store(plan.stored) };
 */
export function fitTurnInput(
  input: AgentTurnInput,
  limits: typeof turnInputLimits = turnInputLimits,
): { kind: 'inline' } | { kind: 'split'; stored: ModelMessage[]; inline: ModelMessage[] } {
  const total = sizeOf(input);
  if (total <= limits.inlineBytes) return { kind: 'inline' };
  const lastUser = input.messages.findLastIndex((message) => message.role === 'user');
  // With no user message after the first, nothing can move to the store: the whole input must fit.
  const split = Math.max(lastUser, 0);
  const inline = input.messages.slice(split);
  const inlineSize = split === 0 ? total : sizeOf({ ...input, messages: inline });
  if (split === 0 || inlineSize > limits.inlineBytes) {
    throw new TurnInputTooLargeError(
      `The turn's input is ${formatBytes(total)}, and its last message${inline.length > 1 ? 's (from the last user message on)' : ''} ` +
        `${inline.length > 1 ? 'are' : 'is'} ${formatBytes(inlineSize)}: at most ${formatBytes(limits.inlineBytes)} ` +
        "may travel in a turn's input (Temporal refuses payloads over 2 MB); earlier messages are kept in the content " +
        'store. Send smaller messages, or large content as a file the tools read.',
    );
  }
  return { kind: 'split', stored: input.messages.slice(0, split), inline };
}

function sizeOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
