import { toResponsesInput } from '../../../src/activities/model/to-responses-input';
import type { ModelMessage, ToolCallPart } from '../../../src/protocol';

const deployCall: ToolCallPart = {
  type: 'tool-call',
  toolCallId: 'mcpr_1',
  toolName: 'mcp.deploy',
  input: { release: '1.2.0' },
  providerExecuted: true,
  providerOptions: { openai: { serverLabel: 'ops' } },
};

describe('toResponsesInput', () => {
  it('sends system, user and assistant text as messages, joining text parts', () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hello ' },
          { type: 'text', text: 'there' },
        ],
      },
      { role: 'assistant', content: 'Hi.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'How ' },
          { type: 'text', text: 'can I help?' },
        ],
      },
    ];

    expect(toResponsesInput(messages)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there' },
      { role: 'assistant', content: 'Hi.' },
      { role: 'assistant', content: 'How can I help?' },
    ]);
  });

  it('sends tool calls as function_call items and their results as rendered function_call_output items', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Clean up' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Removing both.' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'bash', input: { command: 'rm a' } },
          { type: 'tool-call', toolCallId: 'call_2', toolName: 'bash', input: '{"command": "rm b"' },
          { type: 'tool-approval-request', approvalId: 'approval-1', toolCallId: 'call_1' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'approval-1', approved: false, reason: 'Keep a' },
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'bash',
            output: { type: 'execution-denied', reason: 'Keep a' },
          },
          {
            type: 'tool-result',
            toolCallId: 'call_2',
            toolName: 'bash',
            output: { type: 'error-text', value: 'bad JSON' },
          },
        ],
      },
    ];

    const input = toResponsesInput(messages);

    expect(input).toEqual([
      { role: 'user', content: 'Clean up' },
      { role: 'assistant', content: 'Removing both.' },
      { type: 'function_call', call_id: 'call_1', name: 'bash', arguments: '{"command":"rm a"}' },
      // Unreadable arguments go back as the model sent them.
      { type: 'function_call', call_id: 'call_2', name: 'bash', arguments: '{"command": "rm b"' },
      { type: 'function_call_output', call_id: 'call_1', output: expect.stringContaining('Execution denied') },
      { type: 'function_call_output', call_id: 'call_2', output: 'Error from bash: bad JSON' },
    ]);
    // Tollgate's own approvals are not the provider's: no mcp_approval_response for them.
    expect(JSON.stringify(input)).not.toContain('mcp_approval');
    expect(input[4]).toMatchObject({ output: expect.stringContaining('Reason: Keep a') });
  });

  it('rebuilds a provider-executed call waiting for approval as its mcp_approval_request', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Deploy' },
      {
        role: 'assistant',
        content: [deployCall, { type: 'tool-approval-request', approvalId: 'mcpr_1', toolCallId: 'mcpr_1' }],
      },
    ];

    expect(toResponsesInput(messages)).toEqual([
      { role: 'user', content: 'Deploy' },
      {
        type: 'mcp_approval_request',
        id: 'mcpr_1',
        server_label: 'ops',
        name: 'deploy',
        arguments: '{"release":"1.2.0"}',
      },
    ]);
  });

  it('sends a decision on a provider-executed call as an mcp_approval_response, and no output for its denial', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Deploy' },
      {
        role: 'assistant',
        content: [deployCall, { type: 'tool-approval-request', approvalId: 'mcpr_1', toolCallId: 'mcpr_1' }],
      },
      {
        role: 'tool',
        content: [
          // No providerExecuted flag: the approval id alone says it is the provider's.
          { type: 'tool-approval-response', approvalId: 'mcpr_1', approved: false },
          {
            type: 'tool-result',
            toolCallId: 'mcpr_1',
            toolName: 'mcp.deploy',
            output: { type: 'execution-denied' },
          },
        ],
      },
    ];

    expect(toResponsesInput(messages).slice(2)).toEqual([
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false },
    ]);
  });

  it('sends an approval with its reason when one was given', () => {
    const messages: ModelMessage[] = [
      {
        role: 'assistant',
        content: [deployCall, { type: 'tool-approval-request', approvalId: 'mcpr_1', toolCallId: 'mcpr_1' }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-approval-response',
            approvalId: 'mcpr_1',
            approved: true,
            reason: 'Go',
            providerExecuted: true,
          },
        ],
      },
    ];

    expect(toResponsesInput(messages).at(-1)).toEqual({
      type: 'mcp_approval_response',
      approval_request_id: 'mcpr_1',
      approve: true,
      reason: 'Go',
    });
  });

  it('sends a call the provider already ran as an mcp_call holding its output or error', () => {
    const statusCall: ToolCallPart = {
      type: 'tool-call',
      toolCallId: 'mcp_2',
      toolName: 'mcp.status',
      input: {},
      providerExecuted: true,
      providerOptions: { openai: { serverLabel: 'ops', approvalRequestId: 'mcpr_1' } },
    };
    const logsCall: ToolCallPart = {
      ...statusCall,
      toolCallId: 'mcp_3',
      toolName: 'mcp.logs',
      providerOptions: { openai: { serverLabel: 'ops' } },
    };
    const messages: ModelMessage[] = [
      { role: 'assistant', content: [statusCall, logsCall, { type: 'text', text: 'Checked.' }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'mcp_2',
            toolName: 'mcp.status',
            output: { type: 'json', value: { ok: true } },
          },
          {
            type: 'tool-result',
            toolCallId: 'mcp_3',
            toolName: 'mcp.logs',
            output: { type: 'error-text', value: 'denied' },
          },
        ],
      },
    ];

    expect(toResponsesInput(messages)).toEqual([
      {
        type: 'mcp_call',
        id: 'mcp_2',
        server_label: 'ops',
        name: 'status',
        arguments: '{}',
        approval_request_id: 'mcpr_1',
        output: '{"ok":true}',
      },
      { type: 'mcp_call', id: 'mcp_3', server_label: 'ops', name: 'logs', arguments: '{}', error: 'denied' },
      { role: 'assistant', content: 'Checked.' },
    ]);
  });

  it('refuses a provider-executed call without the server label it needs to be sent back', () => {
    const { providerOptions: _providerOptions, ...unlabelled } = deployCall;

    expect(() => toResponsesInput([{ role: 'assistant', content: [unlabelled] }])).toThrow(/serverLabel/);
  });
});

describe('toResponsesInput with a tool that returned an image', () => {
  it('shows the model the image as an input image after the function call output', () => {
    const items = toResponsesInput([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'shot',
            output: { type: 'content', value: [{ type: 'image-url', url: 'https://example.com/a.png' }] },
          },
        ],
      },
    ] as ModelMessage[]);
    expect(items.slice(-2)).toEqual([
      { type: 'function_call_output', call_id: 'c1', output: '[image-url]' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'The image returned by shot in the tool results above:' },
          { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' },
        ],
      },
    ]);
  });
});
