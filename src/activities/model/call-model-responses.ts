import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type { ProviderTool } from '../../protocol';
import type { ToolManifestEntry } from '../../tools';
import type { CallModelInput, InvalidToolCall, ModelStepResult } from '../activity-types';
import type { ModelConnection } from './call-model';
import { classifyModelError } from './model-errors';
import { ModelStreamReporter, type ModelStreamSink } from './model-stream-progress';
import { StepHeartbeat } from './step-heartbeat';
import { assembleResponsesStream } from './model-stream-responses';
import { parseToolArguments } from './parse-tool-arguments';
import { mcpToolNamePrefix, toResponsesInput } from './to-responses-input';

/** Input of `callModelResponses`. */
export type CallModelResponsesInput = CallModelInput;

/** One model step through the Responses API; see {@link ModelStepResult}. */
export type ResponsesStepResult = ModelStepResult;

type ResponsesTool = OpenAI.Responses.Tool;

/**
 * Makes the `callModelResponses` activity: one Responses API request with the turn's tools as functions and the
 * provider's MCP servers, whose approval requests come back as `tool-approval-request` parts.
 *
 * @example
 * const callModelResponses = createCallModelResponses({ client: new OpenAI(), defaultModel: 'gpt-4.1' });
 * const step = await callModelResponses({
 *   messages: [{ role: 'user', content: 'Deploy the release' }],
 *   tools: [],
 *   providerTools: [{ type: 'mcp', serverLabel: 'ops', serverUrl: 'https://ops.example/mcp', requireApproval: 'always' }],
 * });
 * // step.content → [{ type: 'tool-call', toolName: 'mcp.deploy', providerExecuted: true, … },
 * //                 { type: 'tool-approval-request', approvalId: 'mcpr_…', toolCallId: 'mcpr_…' }]
 */
export function createCallModelResponses(
  connection: ModelConnection,
): (input: CallModelResponsesInput, sink?: ModelStreamSink | null) => Promise<ResponsesStepResult> {
  return async function callModelResponses(
    { messages, tools, providerTools = [], settings },
    streamTo = StepHeartbeat.current().sink,
  ) {
    let input: OpenAI.Responses.ResponseInputItem[];
    try {
      input = toResponsesInput(messages);
    } catch (error) {
      // The same history fails the same way every time: retrying cannot help.
      throw ApplicationFailure.create({
        message: error instanceof Error ? error.message : String(error),
        type: 'InvalidModelHistory',
        nonRetryable: true,
        cause: error instanceof Error ? error : undefined,
      });
    }
    const offered: ResponsesTool[] = [...tools.map(functionTool), ...providerTools.map(mcpTool)];
    const request = {
      model: settings?.model ?? connection.defaultModel,
      input,
      // The workflow history is the conversation's record; nothing should depend on the provider keeping one.
      store: false,
      ...(offered.length > 0 && { tools: offered }),
      ...(settings?.temperature !== undefined && { temperature: settings.temperature }),
      ...(settings?.maxOutputTokens !== undefined && { max_output_tokens: settings.maxOutputTokens }),
    };
    let response: OpenAI.Responses.Response;
    // Streamed only where a chat can watch it: a local activity cannot heartbeat, so it asks for the whole answer.
    const sink = connection.stream === false ? undefined : (streamTo ?? undefined);
    try {
      if (!sink) {
        response = await connection.client.responses.create(request);
      } else {
        // Streamed so that a chat sees tokens while the activity runs; the closing event carries the whole response.
        const stream = await connection.client.responses.create({ ...request, stream: true });
        response = await assembleResponsesStream(stream, new ModelStreamReporter(sink));
      }
    } catch (error) {
      throw classifyModelError(error);
    }
    if (response.status === 'failed') {
      throw classifyModelError(new Error(response.error?.message ?? 'the response failed without an error message'));
    }
    return fromResponse(response);
  };
}

function functionTool(tool: ToolManifestEntry): ResponsesTool {
  // Not strict: strict mode demands every property be required, which the tools' schemas do not promise.
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  };
}

function mcpTool(tool: ProviderTool): ResponsesTool {
  return {
    type: 'mcp',
    server_label: tool.serverLabel,
    server_url: tool.serverUrl,
    require_approval: tool.requireApproval,
    ...(tool.allowedTools !== undefined && { allowed_tools: tool.allowedTools }),
  };
}

function fromResponse(response: OpenAI.Responses.Response): ResponsesStepResult {
  const content: ResponsesStepResult['content'] = [];
  const invalidToolCalls: InvalidToolCall[] = [];
  let asksForCalls = false;
  for (const item of response.output) {
    switch (item.type) {
      case 'reasoning': {
        const text = [...(item.summary ?? []), ...(item.content ?? [])].map((part) => part.text).join('');
        if (text !== '') content.push({ type: 'reasoning', text });
        break;
      }
      case 'message': {
        // A refusal is what the model said instead of an answer; the person should read it.
        const text = item.content.map((part) => (part.type === 'output_text' ? part.text : part.refusal)).join('');
        if (text !== '') content.push({ type: 'text', text });
        break;
      }
      case 'function_call': {
        const parsed = parseToolArguments(item.arguments);
        content.push({ type: 'tool-call', toolCallId: item.call_id, toolName: item.name, input: parsed.input });
        if (parsed.error !== undefined) invalidToolCalls.push({ toolCallId: item.call_id, error: parsed.error });
        asksForCalls = true;
        break;
      }
      case 'mcp_approval_request':
        // The provider validates and runs the call; unreadable arguments stay a string for the approver to see.
        content.push(
          {
            type: 'tool-call',
            toolCallId: item.id,
            toolName: mcpToolNamePrefix + item.name,
            input: parseToolArguments(item.arguments).input,
            providerExecuted: true,
            providerOptions: { openai: { serverLabel: item.server_label } },
          },
          { type: 'tool-approval-request', approvalId: item.id, toolCallId: item.id },
        );
        asksForCalls = true;
        break;
      case 'mcp_call': {
        const toolName = mcpToolNamePrefix + item.name;
        content.push(
          {
            type: 'tool-call',
            toolCallId: item.id,
            toolName,
            input: parseToolArguments(item.arguments).input,
            providerExecuted: true,
            providerOptions: {
              openai: {
                serverLabel: item.server_label,
                ...(item.approval_request_id ? { approvalRequestId: item.approval_request_id } : {}),
              },
            },
          },
          {
            type: 'tool-result',
            toolCallId: item.id,
            toolName,
            output: item.error ? { type: 'error-text', value: item.error } : { type: 'text', value: item.output ?? '' },
          },
        );
        break;
      }
      default:
      // Reasoning and tool listings are not kept: with `store: false` the next request cannot refer to them anyway.
    }
  }
  return { content, invalidToolCalls, finishReason: finishReasonOf(response, asksForCalls) };
}

/** The Chat Completions word for why the step ended, which the rest of Tollgate already reads. */
function finishReasonOf(response: OpenAI.Responses.Response, asksForCalls: boolean): string {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    return reason === 'max_output_tokens' ? 'length' : (reason ?? 'incomplete');
  }
  return asksForCalls ? 'tool_calls' : 'stop';
}
