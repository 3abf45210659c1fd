import type { ChatMessage } from './chat-completion-request';

/** The text of a message, whether its content is a string or an array of text parts. */
export function messageText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** The text of the first user message, which is where tests put their markers. */
export function firstUserText(messages: readonly ChatMessage[]): string {
  return messageText(messages.find((message) => message.role === 'user'));
}

/** The text of the most recent user message, which is what the rules answer. */
export function lastUserText(messages: readonly ChatMessage[]): string {
  // findLast is ES2023 and the project compiles against ES2022.
  return messageText([...messages].reverse().find((message) => message.role === 'user'));
}

/** Shortens text to one line of at most `maxLength` characters, for quoting in errors and summaries. */
export function truncate(text: string, maxLength: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= maxLength ? oneLine : `${oneLine.slice(0, maxLength - 1)}…`;
}
