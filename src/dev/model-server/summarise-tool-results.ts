import type { ChatMessage } from './chat-completion-request';
import { messageText, truncate } from './message-text';

const resultQuoteLength = 200;

/**
 * One line per result in the trailing run of tool messages: `<tool> finished: <output>`, or, for a denied call,
 * that it was not done and why, so a demo viewer can see the denial reached the model.
 */
export function summariseToolResults(messages: readonly ChatMessage[]): string {
  const results: ChatMessage[] = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]?.role === 'tool'; index--) {
    results.unshift(messages[index] as ChatMessage);
  }
  return results.map((result) => summariseToolResult(result, toolNameOfCall(messages, result.tool_call_id))).join('\n');
}

function summariseToolResult(result: ChatMessage, toolName: string): string {
  const output = messageText(result);
  if (/\bdenied\b/i.test(output)) {
    return `${toolName} was not done: the call was denied ("${truncate(denialReason(output), resultQuoteLength)}").`;
  }
  const quoted = truncate(output, resultQuoteLength);
  return quoted === '' ? `${toolName} finished with no output.` : `${toolName} finished: ${quoted}`;
}

/** The reason field when the result is a JSON denial, else the whole text, which then carries the reason. */
function denialReason(output: string): string {
  try {
    const parsed: unknown = JSON.parse(output);
    const reason = (parsed as { reason?: unknown } | null)?.reason;
    if (typeof reason === 'string' && reason !== '') return reason;
  } catch {
    // Not JSON: the text itself is the reason.
  }
  return output;
}

/** The name of the tool an assistant message called with `toolCallId`; `tool` when the call is not in the history. */
function toolNameOfCall(messages: readonly ChatMessage[], toolCallId: string | undefined): string {
  for (const message of messages) {
    const toolCall = message.tool_calls?.find((candidate) => candidate.id === toolCallId);
    if (toolCall) return toolCall.function.name;
  }
  return 'tool';
}
