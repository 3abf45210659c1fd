import { formatBytes, type AssistantContentPart } from '../../protocol';
import type { InvalidToolCall } from '../activity-types';

/**
 * How large a model's tool-call arguments may be. A model step's result carries every call's input twice (the
 * assistant message and the planned calls) back to the workflow, where Temporal refuses any payload over 2 MB: a
 * step over that would fail and be retried for ever. Calls past these limits are refused before they leave the
 * activity, with an error result the model reads, and the turn goes on.
 */
export const toolArgumentLimits = {
  /** Bytes of one call's arguments, as JSON. */
  callBytes: 256 * 1024,
  /** Bytes of the arguments of all the calls of one step, as JSON. */
  stepBytes: 512 * 1024,
  /** Characters of refused arguments kept in the transcript, so the model sees what it sent. */
  previewCharacters: 1000,
} as const;

/**
 * Refuses the tool calls whose arguments are too large to travel in a workflow's payloads: each such call keeps a
 * short preview of its arguments as its input and gets an error the model can act on (as malformed arguments do).
 * Calls are admitted in order while the step's total stays within {@link toolArgumentLimits}`.stepBytes`. Calls the
 * provider runs itself are left alone: they already ran.
 *
 * @example
 * const bounded = boundToolArguments(modelStep.content, modelStep.invalidToolCalls);
 */
export function boundToolArguments(
  content: readonly AssistantContentPart[],
  invalidToolCalls: readonly InvalidToolCall[],
  limits: Pick<typeof toolArgumentLimits, 'callBytes' | 'stepBytes'> = toolArgumentLimits,
): { content: AssistantContentPart[]; invalidToolCalls: InvalidToolCall[] } {
  const invalid = [...invalidToolCalls];
  let stepBytes = 0;
  const bounded = content.map((part): AssistantContentPart => {
    if (part.type !== 'tool-call' || part.providerExecuted) return part;
    const text = typeof part.input === 'string' ? part.input : (JSON.stringify(part.input) ?? '');
    const bytes = Buffer.byteLength(text, 'utf8');
    const refusal =
      bytes > limits.callBytes
        ? `one tool call's arguments may be at most ${formatBytes(limits.callBytes)}`
        : stepBytes + bytes > limits.stepBytes
          ? `the arguments of all the calls of one step may be at most ${formatBytes(limits.stepBytes)} together`
          : undefined;
    if (refusal === undefined) {
      stepBytes += bytes;
      return part;
    }
    const error =
      `The arguments of this call are ${formatBytes(bytes)}; ${refusal}, so the call did not run. ` +
      'Send smaller arguments: split large content over several calls or steps.';
    const others = invalid.filter((entry) => entry.toolCallId !== part.toolCallId);
    invalid.splice(0, invalid.length, ...others, { toolCallId: part.toolCallId, error });
    const kept = text.slice(0, toolArgumentLimits.previewCharacters);
    return { ...part, input: `${kept}… [${formatBytes(bytes)} of arguments not kept]` };
  });
  return { content: bounded, invalidToolCalls: invalid };
}
