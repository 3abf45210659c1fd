import type OpenAI from 'openai';
import type { TextPart, ToolCallPart } from '../protocol';
import type { CallModelInput, InvalidToolCall, ModelStepResult } from './activity-types';
import { classifyModelError } from './model-errors';
import { parseToolArguments } from './parse-tool-arguments';
import { toChatMessages } from './to-chat-messages';

/** How the worker reaches the model. */
export interface ModelConnection {
  client: OpenAI;
  /** Used when the turn names no model. */
  defaultModel: string;
}

/** Makes the `callModel` activity: one Chat Completions request with the turn's tools as functions. */
export function createCallModel(connection: ModelConnection): (input: CallModelInput) => Promise<ModelStepResult> {
  return async function callModel({ messages, tools, settings }) {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await connection.client.chat.completions.create({
        model: settings?.model ?? connection.defaultModel,
        messages: toChatMessages(messages),
        ...(tools.length > 0 && {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
        }),
        ...(settings?.temperature !== undefined && { temperature: settings.temperature }),
        ...(settings?.maxOutputTokens !== undefined && { max_completion_tokens: settings.maxOutputTokens }),
      });
    } catch (error) {
      throw classifyModelError(error);
    }
    const choice = completion.choices[0];
    if (!choice) throw classifyModelError(new Error('the response has no choices'));
    const content: Array<TextPart | ToolCallPart> = [];
    const invalidToolCalls: InvalidToolCall[] = [];
    if (choice.message.content) content.push({ type: 'text', text: choice.message.content });
    for (const toolCall of choice.message.tool_calls ?? []) {
      if (toolCall.type !== 'function') continue;
      const { name, arguments: rawArguments } = toolCall.function;
      const parsed = parseToolArguments(rawArguments);
      content.push({ type: 'tool-call', toolCallId: toolCall.id, toolName: name, input: parsed.input });
      if (parsed.error !== undefined) invalidToolCalls.push({ toolCallId: toolCall.id, error: parsed.error });
    }
    return { content, invalidToolCalls, finishReason: choice.finish_reason };
  };
}
