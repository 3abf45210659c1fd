import OpenAI from 'openai';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';

const writeFileTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'writeFile',
  description: 'Write a file',
  parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
  strict: false,
};

const opsServer: OpenAI.Responses.Tool.Mcp = {
  type: 'mcp',
  server_label: 'ops',
  server_url: 'https://ops.example/mcp',
  require_approval: 'always',
};

describe('startModelServer on POST /v1/responses', () => {
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

  it('answers with the scripted text as a completed response whose output_text the client fills in', async () => {
    server.script({ text: 'Hello from the script.' });

    const response = await client.responses.create({ model: 'gpt-test', input: 'Say hello' });

    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-test' });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        role: 'assistant',
        content: [expect.objectContaining({ type: 'output_text', text: 'Hello from the script.', annotations: [] })],
      }),
    ]);
    expect(response.output_text).toBe('Hello from the script.');
    expect(response.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('answers tool calls with function_call items the client parses, with call ids and JSON arguments', async () => {
    server.script({ toolCalls: [{ name: 'writeFile', arguments: { path: 'a.txt', content: 'one' } }] });

    const response = await client.responses.create({
      model: 'gpt-test',
      input: 'Write a file',
      tools: [writeFileTool],
    });

    const [call] = response.output;
    expect(response.output).toHaveLength(1);
    expect(call).toMatchObject({
      type: 'function_call',
      name: 'writeFile',
      call_id: expect.stringMatching(/^call_\d+$/),
    });
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ path: 'a.txt', content: 'one' });
    expect(response.output_text).toBe('');
  });

  it('answers MCP approval requests as mcp_approval_request items with string arguments', async () => {
    server.script({ mcpApprovalRequests: [{ serverLabel: 'ops', name: 'deploy', arguments: { release: '1.2.0' } }] });

    const response = await client.responses.create({ model: 'gpt-test', input: 'Deploy 1.2.0', tools: [opsServer] });

    expect(response.output).toEqual([
      {
        type: 'mcp_approval_request',
        id: expect.stringMatching(/^mcpr_\d+$/),
        server_label: 'ops',
        name: 'deploy',
        arguments: '{"release":"1.2.0"}',
      },
    ]);
  });

  it('answers MCP calls the provider ran as mcp_call items with their output or error, before the text', async () => {
    server.script({
      text: 'One check passed, one failed.',
      mcpCalls: [
        { id: 'mcp_status', serverLabel: 'ops', name: 'status', arguments: {}, output: 'all green' },
        { serverLabel: 'ops', name: 'logs', arguments: { lines: 5 }, error: 'permission denied' },
      ],
    });

    const response = await client.responses.create({
      model: 'gpt-test',
      input: 'Check the service',
      tools: [opsServer],
    });

    expect(response.output.map((item) => item.type)).toEqual(['mcp_call', 'mcp_call', 'message']);
    expect(response.output[0]).toMatchObject({
      id: 'mcp_status',
      server_label: 'ops',
      name: 'status',
      arguments: '{}',
      output: 'all green',
      error: null,
      status: 'completed',
    });
    expect(response.output[1]).toMatchObject({
      id: expect.stringMatching(/^mcp_\d+$/),
      name: 'logs',
      error: 'permission denied',
      status: 'failed',
    });
    expect(response.output_text).toBe('One check passed, one failed.');
  });

  it('records the input items and every tool as sent, with a chat view of them for markers and tool names', async () => {
    server.scriptFor('[responses-record]', { text: 'ok' });

    await client.responses.create({
      model: 'gpt-test',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Deploy it [responses-record]' }] },
        { type: 'mcp_approval_request', id: 'mcpr_9', server_label: 'ops', name: 'deploy', arguments: '{}' },
        { type: 'mcp_approval_response', approval_request_id: 'mcpr_9', approve: false },
      ],
      tools: [writeFileTool, opsServer],
    });

    const [recorded] = server.requestsFor('[responses-record]');
    expect(recorded?.marker).toBe('[responses-record]');
    expect(recorded?.responses?.instructions).toBe('Be brief.');
    expect(recorded?.responses?.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'Deploy it [responses-record]' }] },
      { type: 'mcp_approval_request', id: 'mcpr_9', server_label: 'ops', name: 'deploy', arguments: '{}' },
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_9', approve: false },
    ]);
    expect(recorded?.responses?.tools.map((tool) => tool.type)).toEqual(['function', 'mcp']);
    expect(recorded?.toolNames).toEqual(['writeFile']);
    expect(recorded?.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(recorded?.messages[2]?.tool_calls?.[0]?.function.name).toBe('mcp.deploy');
    expect(recorded?.messages[3]).toMatchObject({ tool_call_id: 'mcpr_9', content: 'Denied.' });
  });

  it('fails loudly when the script runs out: the client gets a 400 quoting the last message, and failures has it', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const error: unknown = await client.responses
        .create({ model: 'gpt-test', input: 'Please list the files in src' })
        .catch((caught: unknown) => caught);

      const expected = 'scripted model server: no scripted reply left for request #1';
      expect(error).toMatchObject({ status: 400, code: 'scripted_model_server_failure' });
      expect((error as Error).message).toContain(expected);
      expect((error as Error).message).toContain('Please list the files in src');
      expect(server.failures).toEqual([expect.stringContaining(expected)]);
    } finally {
      stderr.mockRestore();
    }
  });

  it('streams text, reasoning and a function call as events whose final response matches a non-streamed one', async () => {
    const reply = {
      reasoning: 'The user wants a file written.',
      text: 'Writing it now.',
      toolCalls: [{ id: 'call_w', name: 'writeFile', arguments: { path: 'notes/today.txt', content: 'hello there' } }],
    };
    server.script(reply, reply);

    const stream = await client.responses.create({
      model: 'gpt-test',
      input: 'write hello',
      tools: [writeFileTool],
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const plain = await client.responses.create({ model: 'gpt-test', input: 'write hello', tools: [writeFileTool] });

    const deltas = (type: string) =>
      events.flatMap((event) => (event.type === type ? [(event as { delta: string }).delta] : []));
    expect(deltas('response.output_text.delta').length).toBeGreaterThan(1);
    expect(deltas('response.output_text.delta').join('')).toBe('Writing it now.');
    expect(deltas('response.reasoning_summary_text.delta').join('')).toBe('The user wants a file written.');
    expect(deltas('response.function_call_arguments.delta').join('')).toBe(
      JSON.stringify({ path: 'notes/today.txt', content: 'hello there' }),
    );
    expect(events[0]?.type).toBe('response.created');
    const last = events.at(-1);
    expect(last?.type).toBe('response.completed');
    const final = (last as OpenAI.Responses.ResponseCompletedEvent).response;
    const withoutIds = (items: unknown[]) => JSON.parse(JSON.stringify(items).replace(/resp_scripted_\d+/g, 'resp'));
    expect(withoutIds(final.output.filter((item) => item.type !== 'reasoning'))).toEqual(withoutIds(plain.output));
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(server.requests[0]?.stream).toBe(true);
  });

  it('answers a scripted HTTP error with that status', async () => {
    server.script({ error: { status: 503, message: 'overloaded' } });

    await expect(client.responses.create({ model: 'gpt-test', input: 'hi' })).rejects.toMatchObject({ status: 503 });
  });

  it('answers a body without input with a 400 naming the field and records nothing', async () => {
    const response = await fetch(`${server.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test' }),
    });

    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("'input'");
    expect(server.requests).toEqual([]);
  });

  it('fails loudly when a reply with MCP items is asked for through Chat Completions, which cannot carry them', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      server.script({ mcpApprovalRequests: [{ serverLabel: 'ops', name: 'deploy', arguments: {} }] });

      await expect(
        client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Deploy' }] }),
      ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('only /v1/responses') });
      expect(server.failures).toHaveLength(1);
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('startModelServer on POST /v1/responses in rules mode', () => {
  let server: ModelServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startModelServer({ rules: true });
    client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 });
  });

  afterAll(async () => {
    await server.close();
  });

  it('turns an instruction into a function call of an offered tool, then summarises its output', async () => {
    const first = await client.responses.create({
      model: 'gpt-test',
      input: 'write hello to notes.txt',
      tools: [writeFileTool],
    });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'writeFile' });

    const second = await client.responses.create({
      model: 'gpt-test',
      input: [
        { role: 'user', content: 'write hello to notes.txt' },
        ...first.output.filter((item) => item.type === 'function_call'),
        { type: 'function_call_output', call_id: call?.type === 'function_call' ? call.call_id : '', output: 'wrote' },
      ],
      tools: [writeFileTool],
    });

    expect(second.output_text).toContain('writeFile finished: wrote');
  });
});
