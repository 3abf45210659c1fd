import { argumentsChunkLength, splitIntoPieces, splitIntoWords } from './chat-completion-stream';
import { buildResponse, type ResponseContext } from './responses-response';
import type { ResolvedReply } from './scripted-reply';

type Item = Record<string, unknown>;

/**
 * The events of a streamed Responses API answer, in OpenAI's order: `response.created`, then each output item
 * (added, its deltas, done) — a reasoning item with its summary first when the reply has reasoning, the message
 * text a word at a time, function call arguments in pieces — then `response.completed` (or `.incomplete`) with the
 * same response object a non-streamed request gets, plus the reasoning item.
 */
export function buildResponseEvents(reply: ResolvedReply, context: ResponseContext): Item[] {
  const final = buildResponse(reply, context);
  const output = [...(final.output as Item[])];
  if (reply.reasoning) {
    output.unshift({
      type: 'reasoning',
      id: `rs_${context.id}`,
      summary: [{ type: 'summary_text', text: reply.reasoning }],
    });
  }
  const completed = { ...final, output };
  const events: Item[] = [];
  const push = (type: string, fields: Item) => events.push({ type, sequence_number: events.length, ...fields });

  push('response.created', { response: { ...completed, status: 'in_progress', output: [], usage: null } });
  output.forEach((item, outputIndex) => {
    const base = { output_index: outputIndex, item_id: item.id };
    switch (item.type) {
      case 'reasoning': {
        const text = reply.reasoning ?? '';
        push('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [] } });
        push('response.reasoning_summary_part.added', {
          ...base,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        });
        for (const delta of splitIntoWords(text)) {
          push('response.reasoning_summary_text.delta', { ...base, summary_index: 0, delta });
        }
        push('response.reasoning_summary_text.done', { ...base, summary_index: 0, text });
        push('response.reasoning_summary_part.done', {
          ...base,
          summary_index: 0,
          part: { type: 'summary_text', text },
        });
        break;
      }
      case 'message': {
        const text = reply.text ?? '';
        push('response.output_item.added', {
          output_index: outputIndex,
          item: { ...item, status: 'in_progress', content: [] },
        });
        const emptyPart = { type: 'output_text', text: '', annotations: [], logprobs: [] };
        push('response.content_part.added', { ...base, content_index: 0, part: emptyPart });
        for (const delta of splitIntoWords(text)) {
          push('response.output_text.delta', { ...base, content_index: 0, delta, logprobs: [] });
        }
        push('response.output_text.done', { ...base, content_index: 0, text, logprobs: [] });
        push('response.content_part.done', { ...base, content_index: 0, part: { ...emptyPart, text } });
        break;
      }
      case 'function_call': {
        const argumentsText = String(item.arguments);
        push('response.output_item.added', {
          output_index: outputIndex,
          item: { ...item, arguments: '', status: 'in_progress' },
        });
        for (const delta of splitIntoPieces(argumentsText, argumentsChunkLength)) {
          push('response.function_call_arguments.delta', { ...base, delta });
        }
        push('response.function_call_arguments.done', { ...base, arguments: argumentsText });
        break;
      }
      default:
        push('response.output_item.added', { output_index: outputIndex, item });
    }
    push('response.output_item.done', { output_index: outputIndex, item });
  });
  push(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: completed });
  return events;
}

/** Encodes Responses API events as server-sent events with their `event:` names. */
export function responseServerSentEvents(events: readonly Item[]): string[] {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
}
