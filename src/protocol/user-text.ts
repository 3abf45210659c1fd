import type { UserMessage } from './model-message';

/** The text of a user message, whether its content is a string or text parts. */
export function userText(content: UserMessage['content']): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}
