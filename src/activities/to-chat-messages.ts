import type OpenAI from 'openai';
import { userText, type ModelMessage } from '../protocol';
import { renderToolOutput } from './render-tool-output';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Converts AI SDK-shaped messages to Chat Completions messages. Approval parts are Tollgate's, not the model's. */
export function toChatMessages(messages: readonly ModelMessage[]): ChatMessage[] {
  return messages.flatMap((message): ChatMessage[] => {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', content: message.content }];
      case 'user':
        return [{ role: 'user', content: userText(message.content) }];
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
      case 'tool':
        return message.content.flatMap((part): ChatMessage[] =>
          part.type === 'tool-result'
            ? [{ role: 'tool', tool_call_id: part.toolCallId, content: renderToolOutput(part.toolName, part.output) }]
            : [],
        );
    }
  });
}
