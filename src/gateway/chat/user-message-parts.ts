import type { FileUIPart, TextUIPart } from 'ai';
import type { UserMessage } from '../../protocol';

/**
 * What a person sent, as the UI parts `useChat` showed when they sent it: text, and files (images too) as `file`
 * parts with a URL. The inverse of what `parseChatRequest` makes of a user message.
 */
export function userMessageParts(content: UserMessage['content']): Array<TextUIPart | FileUIPart> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part): TextUIPart | FileUIPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const mediaType = part.type === 'image' ? (part.mediaType ?? 'image/*') : part.mediaType;
    const file = fileSourceOf(part.type === 'image' ? part.image : part.data, mediaType);
    return {
      type: 'file',
      mediaType,
      ...(part.type === 'file' && part.filename !== undefined && { filename: part.filename }),
      ...file,
    };
  });
}

/**
 * A file's data as a UI file part holds it. The AI SDK writes `{ type: 'url', url }` (a URL object, a string once
 * stored), `{ type: 'data', data }` or `{ type: 'reference', reference }`; older messages hold a bare URL or base64.
 */
function fileSourceOf(
  data: unknown,
  mediaType: string,
): { url: string; providerReference?: FileUIPart['providerReference'] } {
  if (data instanceof URL) return { url: data.toString() };
  if (typeof data === 'string') return { url: isUrl(data) ? data : `data:${mediaType};base64,${data}` };
  const source = (data ?? {}) as { type?: string; url?: unknown; data?: unknown; reference?: unknown };
  if (source.type === 'url' && source.url !== undefined) return { url: String(source.url) };
  if (source.type === 'data' && typeof source.data === 'string') return fileSourceOf(source.data, mediaType);
  if (source.type === 'reference' && typeof source.reference === 'object' && source.reference !== null) {
    // The provider holds the bytes; the UI part names them and has no URL of its own.
    return { url: '', providerReference: source.reference as FileUIPart['providerReference'] };
  }
  return { url: '' };
}

function isUrl(text: string): boolean {
  return /^(data|https?|blob):/i.test(text);
}
