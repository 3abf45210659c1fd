import type { ChatContentPart, ChatMessage, ChatToolCall } from './chat-completion-request';
import type { ResponsesContentPart, ResponsesInputItem } from './responses-request';

/**
 * The conversation of a Responses API request as chat messages, so that markers, the rules, `requestsFor` and the
 * failure messages read both APIs alike. MCP items become calls of `mcp.<name>` (the AI SDK's name for them) with
 * their approvals and results as tool messages.
 */
export function chatMessagesOfResponsesInput(
  input: readonly ResponsesInputItem[],
  instructions?: string,
): ChatMessage[] {
  const messages: ChatMessage[] = instructions === undefined ? [] : [{ role: 'system', content: instructions }];
  const addToolCall = (toolCall: ChatToolCall): void => {
    const last = messages.at(-1);
    // Calls of one step sit in one assistant message, as in Chat Completions.
    if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), toolCall];
    else messages.push({ role: 'assistant', content: null, tool_calls: [toolCall] });
  };
  for (const item of input) {
    switch (item.type ?? 'message') {
      case 'message':
        if (typeof item.role === 'string') messages.push({ role: item.role, content: chatContentOf(item.content) });
        break;
      case 'function_call':
        addToolCall(toolCallOf(item.call_id, item.name, item.arguments));
        break;
      case 'function_call_output':
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: chatContentOf(item.output ?? '') });
        break;
      case 'mcp_approval_request':
        addToolCall(toolCallOf(item.id, `mcp.${item.name ?? ''}`, item.arguments));
        break;
      case 'mcp_approval_response':
        messages.push({
          role: 'tool',
          tool_call_id: item.approval_request_id ?? undefined,
          content: item.approve ? 'Approved.' : `Denied.${item.reason ? ` ${item.reason}` : ''}`,
        });
        break;
      case 'mcp_call':
        addToolCall(toolCallOf(item.id, `mcp.${item.name ?? ''}`, item.arguments));
        messages.push({
          role: 'tool',
          tool_call_id: item.id,
          content: item.error ? `Error: ${item.error}` : item.output,
        });
        break;
      default:
      // Reasoning, web search and other items say nothing the scripted model reads.
    }
  }
  return messages;
}

function toolCallOf(id: string | undefined, name: string | undefined, argumentsText: string | undefined): ChatToolCall {
  return { id: id ?? '', type: 'function', function: { name: name ?? '', arguments: argumentsText ?? '' } };
}

function chatContentOf(content: string | ResponsesContentPart[] | undefined): string | ChatContentPart[] {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  // `input_text` and `output_text` are the Responses names of a chat `text` part.
  return content.map((part) =>
    typeof part.text === 'string' && /^(input_|output_)?text$/.test(part.type)
      ? { type: 'text', text: part.text }
      : { type: part.type },
  );
}
