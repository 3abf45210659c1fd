import type OpenAI from 'openai';
import type { ModelStreamReporter } from './model-stream-progress';

type ResponseStreamEvent = OpenAI.Responses.ResponseStreamEvent;

/**
 * Reads a streamed Responses API answer to its end, reporting text, reasoning and function calls to `reporter` as
 * they arrive, and returns the final `response` object the closing event carries: the same object a non-streamed
 * call returns, so the step is built the same way either way.
 */
export async function assembleResponsesStream(
  stream: AsyncIterable<ResponseStreamEvent>,
  reporter: ModelStreamReporter,
): Promise<OpenAI.Responses.Response> {
  let final: OpenAI.Responses.Response | undefined;
  for await (const event of stream) {
    switch (event.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        reporter.addText(event.delta);
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        reporter.addReasoning(event.delta);
        break;
      case 'response.output_item.added':
        if (event.item.type === 'function_call') reporter.addToolCall(event.item.call_id, event.item.name);
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        final = event.response;
        break;
      case 'error':
        throw new Error(`the stream reported an error: ${event.message}${event.code ? ` (${event.code})` : ''}`);
      default:
    }
  }
  reporter.flush();
  if (!final) throw new Error('the stream ended before the response was complete');
  return final;
}
