import type { UserContentPart } from '../../protocol';

/**
 * The largest user message the chat accepts. A message travels to the conversation workflow in a Temporal signal
 * and stays in the workflow's input and history, so it must stay well below Temporal's 2 MB payload limit; text is
 * also bounded by what a conversation accepts (100,000 characters).
 */
export const chatMessageLimits = {
  /** Characters of text in one message. */
  textCharacters: 100_000,
  /** Bytes of the whole message (text and files, as JSON), well below Temporal's 2 MB payload limit. */
  messageBytes: 1024 * 1024,
} as const;

/** Why a message is refused: a sentence naming the real limit, or undefined when it fits. */
export function messageTooLarge(content: string | readonly UserContentPart[]): string | undefined {
  const text =
    typeof content === 'string'
      ? content
      : content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  if (text.length > chatMessageLimits.textCharacters) {
    return (
      `The message has ${formatNumber(text.length)} characters; a chat message may have at most ` +
      `${formatNumber(chatMessageLimits.textCharacters)}. Shorten it, or attach the text as a file.`
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(content), 'utf8');
  if (bytes > chatMessageLimits.messageBytes) {
    return (
      `The message is ${formatBytes(bytes)}; a chat message with its files may be at most ` +
      `${formatBytes(chatMessageLimits.messageBytes)}. Send smaller files, or fewer at once.`
    );
  }
  return undefined;
}

/** `4 MiB`, `1.5 MiB`, `900 KiB`, `512 bytes`: a size a person reads at a glance. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${trim(bytes / (1024 * 1024))} MiB (${formatNumber(bytes)} bytes)`;
  if (bytes >= 1024) return `${trim(bytes / 1024)} KiB (${formatNumber(bytes)} bytes)`;
  return `${formatNumber(bytes)} bytes`;
}

function trim(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function formatNumber(value: number): string {
  return value.toLocaleString('en-US');
}
