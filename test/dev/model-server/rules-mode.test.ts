import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';

const tools: ChatCompletionTool[] = ['readFile', 'listDir', 'glob', 'grep', 'writeFile', 'editFile', 'bash'].map(
  (name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }),
);

describe('startModelServer in rules mode', () => {
  let server: ModelServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startModelServer({ rules: true });
    client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 });
  });

  afterEach(() => {
    server.reset();
  });

  afterAll(async () => {
    await server.close();
  });

  it('answers an unscripted request with tool calls from the rules instead of failing', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'write "hi" to a.txt and run cat a.txt' }],
      tools,
    });

    const toolCalls = completion.choices[0]?.message.tool_calls ?? [];
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(
      toolCalls.map((toolCall) =>
        toolCall.type === 'function' ? [toolCall.function.name, JSON.parse(toolCall.function.arguments)] : [],
      ),
    ).toEqual([
      ['writeFile', { path: 'a.txt', content: 'hi' }],
      ['bash', { command: 'cat a.txt' }],
    ]);
    expect(server.failures).toEqual([]);
  });

  it('summarises the results of a whole turn, including a denial, and ends the turn', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'write hi to a.txt and run rm -rf /' }];
    const first = await client.chat.completions.create({ model: 'gpt-test', messages, tools });
    const [writeCall, bashCall] = first.choices[0]?.message.tool_calls ?? [];

    const second = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        ...messages,
        { role: 'assistant', content: null, tool_calls: first.choices[0]?.message.tool_calls },
        { role: 'tool', tool_call_id: writeCall?.id ?? '', content: 'Wrote 2 bytes to a.txt' },
        { role: 'tool', tool_call_id: bashCall?.id ?? '', content: 'denied: nobody deletes the root' },
      ],
      tools,
      stream: false,
    });

    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message.tool_calls).toBeUndefined();
    expect(second.choices[0]?.message.content).toBe(
      'writeFile finished: Wrote 2 bytes to a.txt\n' +
        'bash was not done: the call was denied ("denied: nobody deletes the root").',
    );
  });

  it('does not call a tool the request did not offer', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'run ls' }],
      tools: tools.filter((tool) => tool.type === 'function' && tool.function.name !== 'bash'),
    });

    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.message.content).toContain('bash tool is not available');
  });

  it('still answers from the script first when replies are queued', async () => {
    server.script({ text: 'scripted wins' });
    server.scriptFor('[marked]', { text: 'marker wins' });

    const ask = async (content: string): Promise<string | null | undefined> =>
      (await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content }], tools }))
        .choices[0]?.message.content;

    expect(await ask('[marked] read a.txt')).toBe('marker wins');
    expect(await ask('read a.txt')).toBe('scripted wins');
    expect(await ask('[marked] hello there')).toContain('I can:');
  });

  it('streams rule answers too', async () => {
    const completion = await client.chat.completions
      .stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'list src' }], tools })
      .finalChatCompletion();

    const toolCall = completion.choices[0]?.message.tool_calls?.[0];
    expect(toolCall?.type === 'function' && toolCall.function).toEqual({
      name: 'listDir',
      arguments: JSON.stringify({ path: 'src' }),
    });
  });
});
