import type OpenAI from 'openai';
import { userText, type ModelMessage, type UserMessage } from '../../protocol';
import { renderToolOutput } from './render-tool-output';
import { toolImagesIntroduction, toolResultImages } from './tool-result-images';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Converts AI SDK-shaped messages to Chat Completions messages. Approval parts are Tollgate's, not the model's. */
export function toChatMessages(messages: readonly ModelMessage[]): ChatMessage[] {
  return messages.flatMap((message): ChatMessage[] => {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', content: message.content }];
      case 'user':
        return [{ role: 'user', content: userContent(message.content) }];
      case 'assistant': {
        if (typeof message.content === 'string') return [{ role: 'assistant', content: message.content }];
        const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        const toolCalls = message.content.flatMap((part) =>
          part.type === 'tool-call'
            ? [
                {
                  id: part.toolCallId,
                  type: 'function' as const,
                  function: {
                    name: part.toolName,
                    // Unreadable arguments were kept as the model's raw string; send them back as they came.
                    arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}),
                  },
                },
              ]
            : [],
        );
        // Approval requests alone (a resumed turn's fresh requests) say nothing to the model.
        if (text.length === 0 && toolCalls.length === 0) return [];
        return [
          {
            role: 'assistant',
            content: text.length > 0 ? text : null,
            ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
          },
        ];
      }
      case 'tool': {
        const results = message.content.flatMap((part): ChatMessage[] =>
          part.type === 'tool-result'
            ? [{ role: 'tool', tool_call_id: part.toolCallId, content: renderToolOutput(part.toolName, part.output) }]
            : [],
        );
        const images = toolResultImages(message);
        if (images.length === 0) return results;
        return [
          ...results,
          {
            role: 'user',
            content: [
              { type: 'text', text: toolImagesIntroduction(images) },
              ...images.map(({ url }) => ({ type: 'image_url' as const, image_url: { url } })),
            ],
          },
        ];
      }
    }
  });
}

type UserContent = OpenAI.Chat.Completions.ChatCompletionUserMessageParam['content'];

/** What the person sent: text as text; images (and image files) as images the model sees; other files named. */
function userContent(content: UserMessage['content']): UserContent {
  if (typeof content === 'string' || content.every((part) => part.type === 'text')) return userText(content);
  return content.map((part): OpenAI.Chat.Completions.ChatCompletionContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const data = part.type === 'image' ? part.image : part.data;
    const mediaType = part.mediaType ?? (part.type === 'image' ? 'image/png' : 'application/octet-stream');
    const url = dataUrl(data, mediaType);
    if (url && mediaType.startsWith('image/')) return { type: 'image_url', image_url: { url } };
    const name = part.type === 'file' && part.filename ? part.filename : 'a file';
    return { type: 'text', text: `[The user attached ${name} (${mediaType}); its content is not shown to you.]` };
  });
}

function dataUrl(data: unknown, mediaType: string): string | undefined {
  if (data instanceof URL) return data.href;
  // The AI SDK 7 form: { type: 'url', url } or { type: 'data', data }.
  if (typeof data === 'object' && data !== null && 'type' in data) {
    const tagged = data as { type: string; url?: unknown; data?: unknown };
    if (tagged.type === 'url') return dataUrl(tagged.url, mediaType);
    if (tagged.type === 'data') return dataUrl(tagged.data, mediaType);
    return undefined;
  }
  if (typeof data !== 'string') return undefined;
  if (/^(data|https?):/.test(data)) return data;
  return `data:${mediaType};base64,${data}`;
}
