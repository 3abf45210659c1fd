import type { UserMessage } from './model-message';

/** The text of a user message, whether its content is a string or parts (images and files have none). */
export function userText(content: UserMessage['content']): string {
  return typeof content === 'string'
    ? content
    : content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}
