import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { messageText, startModelServer, type ModelServer } from '../../../src/dev/model-server';

const writeFileTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'writeFile',
    description: 'Write a file',
    parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
  },
};

describe('startModelServer with scripted replies', () => {
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

  it('answers with the scripted text as a chat.completion the client parses', async () => {
    server.script({ text: 'Hello from the script.' });

    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Say hello' }],
    });

    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices[0]?.message.content).toBe('Hello from the script.');
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('answers with two tool calls in one reply, with deterministic ids and JSON arguments', async () => {
    server.script({
      toolCalls: [
        { name: 'writeFile', arguments: { path: 'a.txt', content: 'one' } },
        { name: 'writeFile', arguments: { path: 'b.txt', content: 'two' } },
      ],
    });

    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Write two files' }],
      tools: [writeFileTool],
    });

    const message = completion.choices[0]?.message;
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(message?.content).toBeNull();
    const toolCalls = (message?.tool_calls ?? []).map((toolCall) =>
      toolCall.type === 'function' ? { ...toolCall, arguments: JSON.parse(toolCall.function.arguments) } : toolCall,
    );
    expect(toolCalls).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^call_\d+$/),
        type: 'function',
        arguments: { path: 'a.txt', content: 'one' },
      }),
      expect.objectContaining({
        id: expect.stringMatching(/^call_\d+$/),
        type: 'function',
        arguments: { path: 'b.txt', content: 'two' },
      }),
    ]);
    expect(new Set(toolCalls.map((toolCall) => toolCall.id)).size).toBe(2);
  });

  it('keeps a scripted tool call id and sends a string of arguments verbatim, even when it is not valid JSON', async () => {
    server.script({ toolCalls: [{ id: 'call_custom', name: 'writeFile', arguments: '{"path": "a.txt", ' }] });

    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Write a file' }],
      tools: [writeFileTool],
    });

    const toolCall = completion.choices[0]?.message.tool_calls?.[0];
    expect(toolCall).toEqual({
      id: 'call_custom',
      type: 'function',
      function: { name: 'writeFile', arguments: '{"path": "a.txt", ' },
    });
  });

  it('records the messages and tools the client sent, so a test can assert what the model was told', async () => {
    server.script(
      { toolCalls: [{ id: 'call_write', name: 'writeFile', arguments: { path: 'a.txt', content: 'x' } }] },
      { text: 'I could not write the file.' },
    );

    await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: 'Write a.txt' },
      ],
      tools: [writeFileTool],
    });
    await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: 'Write a.txt' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_write', type: 'function', function: { name: 'writeFile', arguments: '{"path":"a.txt"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_write', content: 'Tool execution denied: not in this repo' },
      ],
      tools: [writeFileTool],
    });

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.number).toBe(1);
    expect(first?.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(first?.toolNames).toEqual(['writeFile']);
    expect(first?.tools[0]?.function?.parameters).toEqual(writeFileTool.function.parameters);
    expect(first?.stream).toBe(false);
    expect(first?.body.model).toBe('gpt-test');
    expect(first?.receivedAt).toBeInstanceOf(Date);
    const lastMessage = second?.messages.at(-1);
    expect(lastMessage?.role).toBe('tool');
    expect(lastMessage?.tool_call_id).toBe('call_write');
    expect(messageText(lastMessage)).toContain('denied');
    expect(server.lastRequest()).toBe(second);
    expect(server.remaining()).toBe(0);
  });

  it('computes a reply with a function of the recorded request', async () => {
    server.script((request) => ({ text: `You sent ${request.messages.length} messages.` }));

    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Count' },
      ],
    });

    expect(completion.choices[0]?.message.content).toBe('You sent 2 messages.');
  });

  it('keeps marker queues apart so two concurrent tests sharing the server get their own replies', async () => {
    server.script({ text: 'global reply' });
    server.scriptFor('[test-a]', { text: 'a: first' }, { text: 'a: second' });
    server.scriptFor('[test-b]', { text: 'b: first' });

    const ask = async (content: string): Promise<string | null | undefined> => {
      const completion = await client.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content }],
      });
      return completion.choices[0]?.message.content;
    };
    // Each "test" asks in sequence, as a test would; the two run at the same time.
    const testA = async (): Promise<unknown[]> => [await ask('[test-a] hello'), await ask('[test-a] again')];
    const testB = async (): Promise<unknown[]> => [await ask('[test-b] hello')];
    const [answersA, answersB] = await Promise.all([testA(), testB()]);

    expect(answersA).toEqual(['a: first', 'a: second']);
    expect(answersB).toEqual(['b: first']);
    expect(server.remaining('[test-a]')).toBe(0);
    expect(server.remaining()).toBe(1);
    expect(server.requestsFor('[test-a]').map((request) => request.marker)).toEqual(['[test-a]', '[test-a]']);
    expect(await ask('no marker here')).toBe('global reply');
  });

  it('does not let a request with a marker take replies from the global queue when its own queue is empty', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      server.script({ text: 'belongs to another test' });
      server.scriptFor('[test-c]');

      await expect(
        client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: '[test-c] hi' }] }),
      ).rejects.toMatchObject({ status: 400 });

      expect(server.remaining()).toBe(1);
      expect(server.failures[0]).toContain('(marker "[test-c]")');
    } finally {
      stderr.mockRestore();
    }
  });

  it('fails loudly when the script runs out: the client gets a 400 quoting the last message, and failures has it', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      server.script({ text: 'only one reply' });
      await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'first' }] });

      const error: unknown = await client.chat.completions
        .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Please list the files in src' }] })
        .catch((caught: unknown) => caught);

      const expected = 'scripted model server: no scripted reply left for request #2';
      expect(error).toMatchObject({ status: 400, type: 'invalid_request_error' });
      expect((error as Error).message).toContain(expected);
      expect((error as Error).message).toContain('Please list the files in src');
      expect(server.failures).toHaveLength(1);
      expect(server.failures[0]).toContain(expected);
      expect(stderr).toHaveBeenCalledWith(expect.stringContaining(expected));
    } finally {
      stderr.mockRestore();
    }
  });

  it('fails loudly when a scripted reply function throws', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      server.script(() => {
        throw new Error('unexpected request shape');
      });

      await expect(
        client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
      ).rejects.toMatchObject({ status: 400 });

      expect(server.failures[0]).toContain('unexpected request shape');
    } finally {
      stderr.mockRestore();
    }
  });

  it.each([
    { status: 429, message: 'Rate limit reached for requests', type: 'rate_limit_error' },
    { status: 500, message: 'The server had an error', type: 'server_error' },
    { status: 400, message: "Invalid value for 'tools'", type: 'invalid_request_error' },
  ])('answers a scripted HTTP $status as an OpenAI error the client raises', async ({ status, message, type }) => {
    server.script(
      { error: { status, message } },
      { error: { status, message, type: 'custom_type', code: 'custom_code' } },
    );

    const request = (): Promise<unknown> =>
      client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });

    await expect(request()).rejects.toMatchObject({ status, type, message: expect.stringContaining(message) });
    await expect(request()).rejects.toMatchObject({ status, type: 'custom_type', code: 'custom_code' });
    expect(server.failures).toEqual([]);
  });

  it('forgets queues, requests and failures on reset, but keeps tool call ids unique', async () => {
    server.script({ toolCalls: [{ name: 'writeFile', arguments: {} }] }, { text: 'left over' });
    const before = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'go' }],
    });

    server.reset();
    server.script({ toolCalls: [{ name: 'writeFile', arguments: {} }] });
    const after = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'go' }],
    });

    expect(server.remaining()).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.number).toBe(1);
    expect(after.choices[0]?.message.tool_calls?.[0]?.id).not.toBe(before.choices[0]?.message.tool_calls?.[0]?.id);
  });
});
