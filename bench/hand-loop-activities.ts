// The hand-written loop's activities: one model call with the `openai` client (not streamed), and the tool.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { benchToolNames } from './bench-tools';

/** A message of the conversation, as the `openai` client takes it. */
export type LoopMessage = ChatCompletionMessageParam;

/** The model's reply: an assistant message, with tool calls or text. */
export interface LoopReply {
  role: 'assistant';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

/** The activities the loop's workflow calls. */
export interface HandLoopActivities {
  /** One model step over the whole conversation. */
  callModel(input: { messages: LoopMessage[] }): Promise<LoopReply>;
  /** Runs an approved tool call; its arguments as the model sent them (JSON). */
  runTool(call: { name: string; arguments: string }): Promise<string>;
}

/** The tool the model may call, described to it as Tollgate describes the bench's tool. */
const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: benchToolNames.approve,
      description: 'An action that needs approval.',
      parameters: {
        type: 'object',
        properties: { turn: { type: 'string' } },
        required: ['turn'],
        additionalProperties: false,
      },
    },
  },
];

/** The activities, against the model at `model.baseURL`; `onToolStart` is told when the tool begins. */
export function createHandLoopActivities(
  model: { baseURL: string; apiKey: string; model: string },
  onToolStart: (turn: string) => void,
): HandLoopActivities {
  const openai = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey });
  return {
    async callModel({ messages }) {
      const completion = await openai.chat.completions.create({ model: model.model, messages, tools });
      const message = completion.choices[0]?.message;
      if (!message) throw new Error('the model sent no choice');
      const toolCalls = (message.tool_calls ?? []).flatMap((call) =>
        call.type === 'function'
          ? [
              {
                id: call.id,
                type: 'function' as const,
                function: { name: call.function.name, arguments: call.function.arguments },
              },
            ]
          : [],
      );
      return { role: 'assistant', content: message.content, ...(toolCalls.length > 0 && { tool_calls: toolCalls }) };
    },
    async runTool({ name, arguments: text }) {
      if (name !== benchToolNames.approve) throw new Error(`unknown tool ${name}`);
      const parsed: unknown = JSON.parse(text);
      const turn = (parsed as { turn?: unknown } | null)?.turn;
      if (typeof turn !== 'string') throw new Error('the tool needs a turn');
      onToolStart(turn);
      return 'done';
    },
  };
}
