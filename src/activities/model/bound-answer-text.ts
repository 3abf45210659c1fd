import { formatBytes, type AssistantContentPart } from '../../protocol';

/**
 * How much text (and reasoning) one model step may keep. The step's result carries its text twice back to the
 * workflow (the assistant message and the turn's `text`), beside its tool calls, and Temporal refuses a payload over
 * 2 MB: a longer answer would fail the step and be asked of the model again and again.
 */
export const answerTextLimits = {
  /** Bytes of text and reasoning of one step, as UTF-8. */
  stepBytes: 256 * 1024,
} as const;

/**
 * Cuts a model's answer that is too long to travel in a workflow's payloads: the text and reasoning parts are kept, in
 * order, up to {@link answerTextLimits}`.stepBytes`; the part that crosses the limit ends with a note saying how much
 * was not kept, and the parts after it are dropped. Tool calls and everything else are left as they are.
 *
 * @example
 * const content = boundAnswerText(modelStep.content);
 */
export function boundAnswerText(
  content: readonly AssistantContentPart[],
  limits: typeof answerTextLimits = answerTextLimits,
): AssistantContentPart[] {
  const total = content.reduce((sum, part) => sum + textBytes(part), 0);
  if (total <= limits.stepBytes) return [...content];
  let left = limits.stepBytes;
  let noted = false;
  return content.flatMap((part): AssistantContentPart[] => {
    if (part.type !== 'text' && part.type !== 'reasoning') return [part];
    if (noted) return [];
    const bytes = textBytes(part);
    if (bytes <= left) {
      left -= bytes;
      return [part];
    }
    noted = true;
    const kept = Buffer.from(part.text, 'utf8')
      .subarray(0, left)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    const note =
      `… [the rest of the model's answer (${formatBytes(total - limits.stepBytes)}) was not kept: ` +
      `one step's text may be at most ${formatBytes(limits.stepBytes)}]`;
    return [{ ...part, text: `${kept}${note}` }];
  });
}

function textBytes(part: AssistantContentPart): number {
  return part.type === 'text' || part.type === 'reasoning' ? Buffer.byteLength(part.text, 'utf8') : 0;
}
