import type OpenAI from 'openai';
import {
  userText,
  type AssistantMessage,
  type ModelMessage,
  type ToolCallPart,
  type ToolMessage,
  type ToolResultOutput,
  type ToolResultPart,
} from '../../protocol';
import { toolImagesIntroduction, toolResultImages } from './tool-result-images';
import { renderToolOutput } from './render-tool-output';

type ResponsesInputItem = OpenAI.Responses.ResponseInputItem;

/** The prefix of a provider-executed MCP tool's name in the history, as the AI SDK names them: `mcp.<name>`. */
export const mcpToolNamePrefix = 'mcp.';

/** What the provider ran or asked about, found across the whole history. */
interface ProviderHistory {
  /** Provider-executed tool calls by `toolCallId`. */
  calls: Map<string, ToolCallPart>;
  /** The approval request of a provider-executed call, by `toolCallId`. */
  approvalIdsByCall: Map<string, string>;
  /** The approvalIds of provider-executed calls. */
  approvalIds: Set<string>;
  /** Results of provider-executed calls, by `toolCallId`. */
  results: Map<string, ToolResultPart>;
}

/**
 * Converts AI SDK-shaped messages to Responses API input items. Function tools round trip as `function_call` and
 * `function_call_output`. Provider-executed MCP calls are rebuilt as the provider's own items: a call waiting for
 * approval as its `mcp_approval_request`, the decision as an `mcp_approval_response`, a call the provider already
 * ran as an `mcp_call` holding its result. Requests are sent with `store: false`, so the provider only knows what
 * these items tell it.
 *
 * @example
 * toResponsesInput([
 *   { role: 'user', content: 'Deploy it' },
 *   { role: 'assistant', content: [
 *     { type: 'tool-call', toolCallId: 'mcpr_1', toolName: 'mcp.deploy', input: {}, providerExecuted: true,
 *       providerOptions: { openai: { serverLabel: 'ops' } } },
 *     { type: 'tool-approval-request', approvalId: 'mcpr_1', toolCallId: 'mcpr_1' } ] },
 *   { role: 'tool', content: [
 *     { type: 'tool-approval-response', approvalId: 'mcpr_1', approved: false, providerExecuted: true } ] },
 * ]);
 * // → [{ role: 'user', … }, { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'ops', name: 'deploy', … },
 * //    { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false }]
 */
export function toResponsesInput(messages: readonly ModelMessage[]): ResponsesInputItem[] {
  const history = indexProviderHistory(messages);
  return messages.flatMap((message): ResponsesInputItem[] => {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', content: message.content }];
      case 'user':
        return [{ role: 'user', content: userText(message.content) }];
      case 'assistant':
        return assistantItems(message, history);
      case 'tool': {
        const items = toolItems(message, history);
        const images = toolResultImages(message);
        if (images.length === 0) return items;
        return [
          ...items,
          {
            role: 'user',
            content: [
              { type: 'input_text', text: toolImagesIntroduction(images) },
              ...images.map(({ url }) => ({ type: 'input_image' as const, image_url: url, detail: 'auto' as const })),
            ],
          },
        ];
      }
    }
  });
}

function assistantItems(message: AssistantMessage, history: ProviderHistory): ResponsesInputItem[] {
  if (typeof message.content === 'string') {
    return message.content === '' ? [] : [{ role: 'assistant', content: message.content }];
  }
  const items: ResponsesInputItem[] = [];
  let text = '';
  const flushText = (): void => {
    if (text !== '') items.push({ role: 'assistant', content: text });
    text = '';
  };
  for (const part of message.content) {
    if (part.type === 'text') {
      text += part.text;
      continue;
    }
    // Items keep the order the model produced them in.
    flushText();
    if (part.type === 'tool-call') items.push(toolCallItem(part, history));
    // A `tool-approval-request` adds nothing here: the provider's is rebuilt from its tool call, and Tollgate's own
    // approvals are not the model's business (it reads their outcome in the tool result).
  }
  flushText();
  return items;
}

function toolCallItem(part: ToolCallPart, history: ProviderHistory): ResponsesInputItem {
  // Unreadable arguments were kept as the model's raw string; send them back as they came.
  const argumentsText = typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
  if (!part.providerExecuted) {
    return { type: 'function_call', call_id: part.toolCallId, name: part.toolName, arguments: argumentsText };
  }
  const serverLabel = openaiOption(part, 'serverLabel');
  if (serverLabel === undefined) {
    throw new TypeError(
      `The provider-executed tool call ${part.toolCallId} (${part.toolName}) has no providerOptions.openai.serverLabel, ` +
        'so it cannot be sent back to the Responses API.',
    );
  }
  const name = part.toolName.startsWith(mcpToolNamePrefix)
    ? part.toolName.slice(mcpToolNamePrefix.length)
    : part.toolName;
  const approvalId = history.approvalIdsByCall.get(part.toolCallId);
  if (approvalId !== undefined) {
    return { type: 'mcp_approval_request', id: approvalId, server_label: serverLabel, name, arguments: argumentsText };
  }
  const result = history.results.get(part.toolCallId);
  const approvalRequestId = openaiOption(part, 'approvalRequestId');
  return {
    type: 'mcp_call',
    id: part.toolCallId,
    server_label: serverLabel,
    name,
    arguments: argumentsText,
    ...(approvalRequestId !== undefined && { approval_request_id: approvalRequestId }),
    ...(result !== undefined && mcpCallOutcome(part.toolName, result.output)),
  };
}

function toolItems(message: ToolMessage, history: ProviderHistory): ResponsesInputItem[] {
  return message.content.flatMap((part): ResponsesInputItem[] => {
    if (part.type === 'tool-result') {
      // A provider-executed call's result already travels in its `mcp_call` item, and a denied approval reaches the
      // provider as `approve: false`; a `function_call_output` for either would answer a call the model never made.
      if (history.calls.has(part.toolCallId)) return [];
      return [
        {
          type: 'function_call_output',
          call_id: part.toolCallId,
          output: renderToolOutput(part.toolName, part.output),
        },
      ];
    }
    if (!part.providerExecuted && !history.approvalIds.has(part.approvalId)) return [];
    return [
      {
        type: 'mcp_approval_response',
        approval_request_id: part.approvalId,
        approve: part.approved,
        // The API takes an optional reason (openai 6.49 types it); the audit keeps it whether or not it is sent.
        ...(part.reason !== undefined && { reason: part.reason }),
      },
    ];
  });
}

function mcpCallOutcome(toolName: string, output: ToolResultOutput): { output: string } | { error: string } {
  switch (output.type) {
    case 'text':
      return { output: output.value };
    case 'json':
      return { output: JSON.stringify(output.value) };
    case 'error-text':
      return { error: output.value };
    case 'error-json':
      return { error: JSON.stringify(output.value) };
    case 'execution-denied':
      return { error: renderToolOutput(toolName, output) };
    case 'content':
      return { output: renderToolOutput(toolName, output) };
  }
}

function indexProviderHistory(messages: readonly ModelMessage[]): ProviderHistory {
  const history: ProviderHistory = {
    calls: new Map(),
    approvalIdsByCall: new Map(),
    approvalIds: new Set(),
    results: new Map(),
  };
  const assistantParts = messages.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string' ? message.content : [],
  );
  for (const part of assistantParts) {
    if (part.type === 'tool-call' && part.providerExecuted) history.calls.set(part.toolCallId, part);
  }
  for (const part of assistantParts) {
    if (part.type === 'tool-approval-request' && history.calls.has(part.toolCallId)) {
      history.approvalIdsByCall.set(part.toolCallId, part.approvalId);
      history.approvalIds.add(part.approvalId);
    }
  }
  // Results are looked for in every message with parts, not only tool messages: the AI SDK keeps a
  // provider-executed result in the assistant message that made the call.
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content as ReadonlyArray<{ type: string }>) {
      if (isToolResultPart(part) && history.calls.has(part.toolCallId)) history.results.set(part.toolCallId, part);
    }
  }
  return history;
}

function isToolResultPart(part: { type: string }): part is ToolResultPart {
  return part.type === 'tool-result';
}

function openaiOption(part: ToolCallPart, key: string): string | undefined {
  const value = part.providerOptions?.openai?.[key];
  return typeof value === 'string' ? value : undefined;
}
