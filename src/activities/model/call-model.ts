import type OpenAI from 'openai';
import type { CallModelInput, InvalidToolCall, ModelStepResult } from '../activity-types';
import { classifyModelError } from './model-errors';
import { assembleChatStream, type AssembledChatMessage } from './model-stream-chat';
import { ModelStreamReporter, type ModelStreamSink } from './model-stream-progress';
import { StepHeartbeat } from './step-heartbeat';
import { parseToolArguments } from './parse-tool-arguments';
import { toChatMessages } from './to-chat-messages';

/** How the worker reaches the model. */
export interface ModelConnection {
  client: OpenAI;
  /** Used when the turn names no model. */
  defaultModel: string;
  /**
   * Stream the answer (default true) and heartbeat its progress, so a chat can show tokens while the activity runs.
   * Set false for endpoints that cannot stream; the result is the same either way. A step nobody follows (a turn
   * without `stream`, from revision 13) or can watch (a local activity, which cannot heartbeat) asks for the whole
   * answer at once whatever this says.
   */
  stream?: boolean;
}

/**
 * One model call. Its stream reports to `sink` (by default the heartbeat of the activity it runs in); with no sink,
 * or `null` (nobody follows the turn), it asks for the whole answer at once.
 */
export type ModelCall = (input: CallModelInput, sink?: ModelStreamSink | null) => Promise<ModelStepResult>;

/** Makes the `callModel` activity: one Chat Completions request with the turn's tools as functions. */
export function createCallModel(connection: ModelConnection): ModelCall {
  return async function callModel({ messages, tools, settings }, streamTo = StepHeartbeat.current().sink) {
    const request = {
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
    };
    let message: AssembledChatMessage;
    const sink = connection.stream === false ? undefined : (streamTo ?? undefined);
    try {
      if (!sink) {
        const completion = await connection.client.chat.completions.create(request);
        const choice = completion.choices[0];
        if (!choice) throw new Error('the response has no choices');
        message = {
          content: choice.message.content,
          // Providers that expose reasoning on Chat Completions put it beside the content.
          reasoning: (choice.message as { reasoning_content?: string }).reasoning_content ?? '',
          toolCalls: (choice.message.tool_calls ?? []).flatMap((toolCall) =>
            toolCall.type === 'function' ? [{ id: toolCall.id, ...toolCall.function }] : [],
          ),
          finishReason: choice.finish_reason,
        };
      } else {
        const stream = await connection.client.chat.completions.create({ ...request, stream: true });
        message = await assembleChatStream(stream, new ModelStreamReporter(sink));
      }
    } catch (error) {
      throw classifyModelError(error);
    }
    return toModelStep(message);
  };
}

function toModelStep(message: AssembledChatMessage): ModelStepResult {
  const content: ModelStepResult['content'] = [];
  const invalidToolCalls: InvalidToolCall[] = [];
  // Reasoning first, as the model produced it; the history keeps it for the chat and the audit.
  if (message.reasoning) content.push({ type: 'reasoning', text: message.reasoning });
  if (message.content) content.push({ type: 'text', text: message.content });
  for (const toolCall of message.toolCalls) {
    const parsed = parseToolArguments(toolCall.arguments);
    content.push({ type: 'tool-call', toolCallId: toolCall.id, toolName: toolCall.name, input: parsed.input });
    if (parsed.error !== undefined) invalidToolCalls.push({ toolCallId: toolCall.id, error: parsed.error });
  }
  return { content, invalidToolCalls, finishReason: message.finishReason };
}
