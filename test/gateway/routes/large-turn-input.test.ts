import type { AgentTurnResult, ModelMessage } from '../../../src/protocol';
import { uniqueMarker } from '../../support/test-environment';
import { expectProblem } from '../gateway-fixture';
import { useTurnGateway } from '../../support/turn-gateway-fixture';

// An operator who raised the body limit: bodies can now be larger than a workflow's input may be.
const stack = useTurnGateway({ gateway: { bodyLimitBytes: 16 * 1024 * 1024 } });

const mebibyte = 1024 * 1024;

describe('POST /v1/turns with messages larger than a workflow input may carry', () => {
  it('keeps a 3 MiB history in the content store, and the model still reads all of it', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(marker, { text: 'I read it all.' });
    const messages: ModelMessage[] = [
      { role: 'user', content: `${marker} first ${'a'.repeat(1.5 * mebibyte)}` },
      { role: 'assistant', content: [{ type: 'text', text: 'noted' }] },
      { role: 'user', content: `second ${'b'.repeat(1.5 * mebibyte)}` },
      { role: 'assistant', content: [{ type: 'text', text: 'noted again' }] },
      { role: 'user', content: 'what did I send?' },
    ];
    const started = await stack.gateway.call('POST', '/v1/turns', { body: { messages } });
    expect(started.status).toBe(201);

    const result = (await stack.environment.tollgate.turn(started.body.workflowId).result()) as AgentTurnResult;
    expect(result.status).toBe('completed');
    expect(result.text).toBe('I read it all.');
    const told = stack.environment.model.requests.find((request) => JSON.stringify(request.messages).includes(marker));
    expect(told?.messages.map((message) => (message.content as string).length)).toEqual(
      messages.map((message) => (typeof message.content === 'string' ? message.content.length : expect.any(Number))),
    );
    // What the workflow was started with stays small: the history went to the store.
    const history = await stack.environment.tollgate.turn(started.body.workflowId).fetchHistory();
    const startedEvent = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const inputBytes = startedEvent?.input?.payloads?.reduce((sum, payload) => sum + (payload.data?.length ?? 0), 0);
    expect(inputBytes).toBeLessThan(64 * 1024);
  });

  it('answers a 3 MiB last message with a 413 naming the real limit, and starts nothing', async () => {
    const marker = uniqueMarker();
    const response = await stack.gateway.call('POST', '/v1/turns', {
      body: { messages: [{ role: 'user', content: `${marker} ${'c'.repeat(3 * mebibyte)}` }] },
    });
    expectProblem(response, 413, 'payload-too-large');
    expect(response.body.detail).toMatch(/is 3 MiB .*at most 1 MiB .*Temporal refuses payloads over 2 MB/);
    expect(stack.environment.model.requests.some((request) => JSON.stringify(request.messages).includes(marker))).toBe(
      false,
    );
  });
});
