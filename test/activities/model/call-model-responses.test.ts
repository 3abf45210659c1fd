import OpenAI from 'openai';
import { createCallModelResponses } from '../../../src/activities/model/call-model-responses';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';
import type { ModelMessage, ProviderTool } from '../../../src/protocol';
import type { ToolManifestEntry } from '../../../src/tools';

const opsServer: ProviderTool = {
  type: 'mcp',
  serverLabel: 'ops',
  serverUrl: 'https://ops.example/mcp',
  requireApproval: 'always',
  allowedTools: ['deploy'],
};

const readFileTool: ToolManifestEntry = {
  name: 'readFile',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  approval: 'never',
};

describe('callModelResponses', () => {
  let server: ModelServer;
  let callModelResponses: ReturnType<typeof createCallModelResponses>;

  beforeAll(async () => {
    server = await startModelServer();
    const client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 });
    callModelResponses = createCallModelResponses({ client, defaultModel: 'gpt-test' });
  });

  afterEach(() => {
    expect(server.failures).toEqual([]);
    server.reset();
  });

  afterAll(async () => {
    await server.close();
  });

  it('offers function tools and MCP servers, without asking the provider to store the conversation', async () => {
    server.script({ text: 'Nothing to do.' });

    await callModelResponses({
      messages: [{ role: 'user', content: 'Hello' }],
      tools: [readFileTool],
      providerTools: [opsServer],
      settings: { model: 'gpt-other', maxOutputTokens: 100 },
    });

    const body = server.lastRequest()?.body;
    expect(body).toMatchObject({ model: 'gpt-other', store: false, max_output_tokens: 100 });
    expect(server.lastRequest()?.responses?.tools).toEqual([
      {
        type: 'function',
        name: 'readFile',
        description: 'Read a file',
        parameters: readFileTool.parameters,
        strict: false,
      },
      {
        type: 'mcp',
        server_label: 'ops',
        server_url: 'https://ops.example/mcp',
        require_approval: 'always',
        allowed_tools: ['deploy'],
      },
    ]);
  });

  it('turns an MCP approval request into a provider-executed tool call followed by its tool-approval-request', async () => {
    server.script({
      mcpApprovalRequests: [{ id: 'mcpr_deploy', serverLabel: 'ops', name: 'deploy', arguments: { release: '1.2.0' } }],
    });

    const step = await callModelResponses({
      messages: [{ role: 'user', content: 'Deploy 1.2.0' }],
      tools: [],
      providerTools: [opsServer],
    });

    expect(step).toEqual({
      content: [
        {
          type: 'tool-call',
          toolCallId: 'mcpr_deploy',
          toolName: 'mcp.deploy',
          input: { release: '1.2.0' },
          providerExecuted: true,
          providerOptions: { openai: { serverLabel: 'ops' } },
        },
        { type: 'tool-approval-request', approvalId: 'mcpr_deploy', toolCallId: 'mcpr_deploy' },
      ],
      invalidToolCalls: [],
      finishReason: 'tool_calls',
    });
  });

  it('sends a denial as an mcp_approval_response with approve false, after the echoed approval request', async () => {
    server.script({ mcpApprovalRequests: [{ id: 'mcpr_deploy', serverLabel: 'ops', name: 'deploy', arguments: {} }] });
    const user: ModelMessage = { role: 'user', content: 'Deploy 1.2.0' };
    const first = await callModelResponses({ messages: [user], tools: [], providerTools: [opsServer] });

    server.script({ text: 'Understood, I did not deploy.' });
    const second = await callModelResponses({
      messages: [
        user,
        { role: 'assistant', content: first.content.filter((part) => part.type !== 'tool-result') },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-approval-response',
              approvalId: 'mcpr_deploy',
              approved: false,
              reason: 'Release freeze',
              providerExecuted: true,
            },
          ],
        },
      ],
      tools: [],
      providerTools: [opsServer],
    });

    expect(server.lastRequest()?.responses?.input).toEqual([
      { role: 'user', content: 'Deploy 1.2.0' },
      { type: 'mcp_approval_request', id: 'mcpr_deploy', server_label: 'ops', name: 'deploy', arguments: '{}' },
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_deploy', approve: false, reason: 'Release freeze' },
    ]);
    expect(second.content).toEqual([{ type: 'text', text: 'Understood, I did not deploy.' }]);
    expect(second.finishReason).toBe('stop');
  });

  it('keeps MCP calls the provider ran as provider-executed tool calls with their results, and sends them back', async () => {
    server.script({
      text: 'The service is healthy.',
      mcpCalls: [{ id: 'mcp_status', serverLabel: 'ops', name: 'status', arguments: {}, output: 'all green' }],
    });
    const user: ModelMessage = { role: 'user', content: 'Is the service healthy?' };
    const step = await callModelResponses({ messages: [user], tools: [], providerTools: [opsServer] });

    expect(step.content).toEqual([
      {
        type: 'tool-call',
        toolCallId: 'mcp_status',
        toolName: 'mcp.status',
        input: {},
        providerExecuted: true,
        providerOptions: { openai: { serverLabel: 'ops' } },
      },
      {
        type: 'tool-result',
        toolCallId: 'mcp_status',
        toolName: 'mcp.status',
        output: { type: 'text', value: 'all green' },
      },
      { type: 'text', text: 'The service is healthy.' },
    ]);
    expect(step.finishReason).toBe('stop');

    server.script({ text: 'Yes.' });
    const [toolCall, toolResult, text] = step.content;
    if (toolCall?.type !== 'tool-call' || toolResult?.type !== 'tool-result' || text?.type !== 'text') {
      throw new Error('unexpected content');
    }
    await callModelResponses({
      messages: [
        user,
        { role: 'assistant', content: [toolCall, text] },
        { role: 'tool', content: [toolResult] },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [],
      providerTools: [opsServer],
    });

    expect(server.lastRequest()?.responses?.input).toEqual([
      { role: 'user', content: 'Is the service healthy?' },
      { type: 'mcp_call', id: 'mcp_status', server_label: 'ops', name: 'status', arguments: '{}', output: 'all green' },
      { role: 'assistant', content: 'The service is healthy.' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  it('round trips function calls and their outputs as function_call and function_call_output items', async () => {
    server.script({
      text: 'Reading it.',
      toolCalls: [{ id: 'call_read', name: 'readFile', arguments: { path: 'a.txt' } }],
    });
    const user: ModelMessage = { role: 'user', content: 'What is in a.txt?' };
    const first = await callModelResponses({ messages: [user], tools: [readFileTool] });

    expect(first).toEqual({
      content: [
        { type: 'text', text: 'Reading it.' },
        { type: 'tool-call', toolCallId: 'call_read', toolName: 'readFile', input: { path: 'a.txt' } },
      ],
      invalidToolCalls: [],
      finishReason: 'tool_calls',
    });

    server.script({ text: 'It says hello.' });
    await callModelResponses({
      messages: [
        user,
        { role: 'assistant', content: first.content.filter((part) => part.type !== 'tool-result') },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_read',
              toolName: 'readFile',
              output: { type: 'text', value: 'hello' },
            },
          ],
        },
      ],
      tools: [readFileTool],
    });

    expect(server.lastRequest()?.responses?.input).toEqual([
      { role: 'user', content: 'What is in a.txt?' },
      { role: 'assistant', content: 'Reading it.' },
      { type: 'function_call', call_id: 'call_read', name: 'readFile', arguments: '{"path":"a.txt"}' },
      { type: 'function_call_output', call_id: 'call_read', output: 'hello' },
    ]);
  });

  it('keeps malformed function arguments as the raw string and reports the call as invalid', async () => {
    server.script({ toolCalls: [{ id: 'call_bad', name: 'readFile', arguments: '{"path": "a.txt"' }] });

    const step = await callModelResponses({
      messages: [{ role: 'user', content: 'Read a.txt' }],
      tools: [readFileTool],
    });

    expect(step.content).toEqual([
      { type: 'tool-call', toolCallId: 'call_bad', toolName: 'readFile', input: '{"path": "a.txt"' },
    ]);
    expect(step.invalidToolCalls).toEqual([
      { toolCallId: 'call_bad', error: expect.stringContaining('The arguments are not valid JSON') },
    ]);
  });

  it('reports a response cut short by the output limit with the finish reason length', async () => {
    server.script({ text: 'The answer is', finishReason: 'length' });

    const step = await callModelResponses({ messages: [{ role: 'user', content: 'Explain' }], tools: [] });

    expect(step.finishReason).toBe('length');
    expect(step.content).toEqual([{ type: 'text', text: 'The answer is' }]);
  });

  it('classifies a 400 as a non-retryable ModelRequestRejected', async () => {
    server.script({ error: { status: 400, message: 'Unknown parameter' } });

    await expect(callModelResponses({ messages: [{ role: 'user', content: 'Hi' }], tools: [] })).rejects.toMatchObject({
      type: 'ModelRequestRejected',
      nonRetryable: true,
      message: expect.stringContaining('Unknown parameter'),
    });
  });

  it('classifies a 500 as a retryable ModelUnavailable', async () => {
    server.script({ error: { status: 500, message: 'The server had an error' } });

    await expect(callModelResponses({ messages: [{ role: 'user', content: 'Hi' }], tools: [] })).rejects.toMatchObject({
      type: 'ModelUnavailable',
      nonRetryable: false,
    });
  });

  it('fails without retries, and without calling the model, on a provider call it cannot send back', async () => {
    await expect(
      callModelResponses({
        messages: [
          { role: 'user', content: 'Deploy' },
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', toolCallId: 'mcpr_1', toolName: 'mcp.deploy', input: {}, providerExecuted: true },
            ],
          },
        ],
        tools: [],
      }),
    ).rejects.toMatchObject({ type: 'InvalidModelHistory', nonRetryable: true });
    expect(server.requests).toEqual([]);
  });
});
