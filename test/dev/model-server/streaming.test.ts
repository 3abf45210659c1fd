import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';

const tools: ChatCompletionTool[] = ['readFile', 'bash'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object' } },
}));

describe('startModelServer streaming', () => {
  let server: ModelServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startModelServer();
    client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 });
  });

  afterEach(() => {
    server.reset();
  });

  afterAll(async () => {
    await server.close();
  });

  it('streams text as several content deltas that add up to the scripted text', async () => {
    server.script({ text: 'Streaming works, one word at a time.' });

    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'stream please' }],
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const contentDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.content ?? []).filter((text) => text);
    expect(contentDeltas.length).toBeGreaterThan(1);
    expect(contentDeltas.join('')).toBe('Streaming works, one word at a time.');
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0]?.id)).toBe(true);
    expect(server.lastRequest()?.stream).toBe(true);
  });

  it('streams text and two tool calls that the client assembles into the same message as a non-streamed reply', async () => {
    const reply = {
      text: 'Let me look.',
      toolCalls: [
        { id: 'call_read', name: 'readFile', arguments: { path: 'src/some/deeply/nested/file.ts' } },
        { id: 'call_bash', name: 'bash', arguments: { command: 'ls -la && echo "done"' } },
      ],
    };
    server.script(reply, reply);
    const messages = [{ role: 'user' as const, content: 'look around' }];

    const streamed = await client.chat.completions.stream({ model: 'gpt-test', messages, tools }).finalChatCompletion();
    const plain = await client.chat.completions.create({ model: 'gpt-test', messages, tools });

    expect(streamed.choices[0]?.finish_reason).toBe('tool_calls');
    expect(streamed.choices[0]?.message.content).toBe('Let me look.');
    expect(streamed.choices[0]?.message.tool_calls).toEqual(plain.choices[0]?.message.tool_calls);
    expect(plain.choices[0]?.message.tool_calls?.map((toolCall) => toolCall.id)).toEqual(['call_read', 'call_bash']);
  });

  it('sends tool call arguments in pieces keyed by index, and a malformed arguments string arrives verbatim', async () => {
    server.script({ toolCalls: [{ name: 'bash', arguments: '{"command": "echo unterminated' }] });

    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'run something' }],
      tools,
      stream: true,
    });
    const toolCallDeltas = [];
    for await (const chunk of stream) toolCallDeltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));

    expect(toolCallDeltas.length).toBeGreaterThan(2);
    expect(toolCallDeltas.every((delta) => delta.index === 0)).toBe(true);
    expect(toolCallDeltas[0]).toMatchObject({ id: expect.stringMatching(/^call_\d+$/), function: { name: 'bash' } });
    expect(toolCallDeltas.map((delta) => delta.function?.arguments ?? '').join('')).toBe(
      '{"command": "echo unterminated',
    );
  });

  it('ends with a usage chunk when the client asks for stream usage', async () => {
    server.script({ text: 'counted' });

    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'count tokens' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.total_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('answers a scripted error before any event is streamed', async () => {
    server.script({ error: { status: 429, message: 'Slow down' } });

    await expect(
      client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    ).rejects.toMatchObject({ status: 429 });
  });

  it("streams reasoning as reasoning_content deltas before the text, and paces chunks by the reply's delay", async () => {
    server.script({ reasoning: 'Think first, then answer.', text: 'An answer.', streamDelayMs: 20 });

    const started = Date.now();
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'think' }],
      stream: true,
    });
    const arrivals: Array<{ at: number; chunk: ChatCompletionChunk }> = [];
    for await (const chunk of stream) arrivals.push({ at: Date.now(), chunk });

    const reasoning = arrivals.map(
      ({ chunk }) => (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '',
    );
    expect(reasoning.join('')).toBe('Think first, then answer.');
    const firstText = arrivals.findIndex(({ chunk }) => chunk.choices[0]?.delta.content);
    expect(reasoning.slice(firstText).join('')).toBe('');
    expect(arrivals.map(({ chunk }) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('An answer.');
    // Eight chunks at least, 20 ms apart.
    expect((arrivals.at(-1)?.at ?? 0) - started).toBeGreaterThanOrEqual(7 * 20);
  });
});
