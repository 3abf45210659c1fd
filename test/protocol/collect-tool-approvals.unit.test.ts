import { collectToolApprovals, type ModelMessage } from '../../src/protocol';

const deleteCall = { type: 'tool-call' as const, toolCallId: 'c1', toolName: 'deleteFile', input: { path: 'a' } };
const deployCall = { type: 'tool-call' as const, toolCallId: 'c2', toolName: 'deploy', input: { service: 'web' } };

/** A history where the model asked to delete a file and to deploy, and both wait for approval. */
const asked: ModelMessage[] = [
  { role: 'user', content: 'Clean up and deploy.' },
  {
    role: 'assistant',
    content: [
      deleteCall,
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
      deployCall,
      { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c2' },
    ],
  },
];

function answering(...responses: Array<{ approvalId: string; approved: boolean; reason?: string }>): ModelMessage[] {
  return [
    ...asked,
    { role: 'tool', content: responses.map((response) => ({ type: 'tool-approval-response' as const, ...response })) },
  ];
}

describe('collectToolApprovals', () => {
  it('pairs each response of the last message with its request and call, and reports the rest as waiting', () => {
    const collected = collectToolApprovals(answering({ approvalId: 'a1', approved: false, reason: 'keep it' }));
    expect(collected).toEqual({
      ok: true,
      answered: [
        {
          request: { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
          toolCall: deleteCall,
          response: { type: 'tool-approval-response', approvalId: 'a1', approved: false, reason: 'keep it' },
        },
      ],
      unanswered: [
        { request: { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c2' }, toolCall: deployCall },
      ],
    });
  });

  it('uses the first of two responses to the same request, so a call never runs twice', () => {
    const collected = collectToolApprovals(
      answering({ approvalId: 'a1', approved: true }, { approvalId: 'a1', approved: false }),
    );
    expect(
      collected.ok && collected.answered.map((entry) => [entry.request.approvalId, entry.response.approved]),
    ).toEqual([['a1', true]]);
  });

  it('does not run again a call that already has a result anywhere in the history', () => {
    const history: ModelMessage[] = [
      ...asked,
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'deleteFile', output: { type: 'text', value: 'deleted' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
    ];
    const collected = collectToolApprovals(history);
    expect(collected.ok && collected.answered).toEqual([]);
    expect(collected.ok && collected.unanswered.map((entry) => entry.request.approvalId)).toEqual(['a2']);
  });

  it('reads responses only from the last message: older ones were handled by an earlier turn', () => {
    const history: ModelMessage[] = [
      ...answering({ approvalId: 'a1', approved: true }),
      { role: 'user', content: 'And?' },
    ];
    const collected = collectToolApprovals(history);
    expect(collected.ok && collected.answered).toEqual([]);
  });

  it('refuses a response to a request that is not in the messages, naming its approvalId', () => {
    expect(collectToolApprovals(answering({ approvalId: 'forged', approved: true }))).toEqual({
      ok: false,
      error: 'Unknown approvalId "forged": no tool-approval-request in the messages has this id.',
    });
  });

  it('refuses a request whose tool call is missing from the messages', () => {
    const history: ModelMessage[] = [
      { role: 'assistant', content: [{ type: 'tool-approval-request', approvalId: 'a9', toolCallId: 'gone' }] },
    ];
    expect(collectToolApprovals(history)).toEqual({
      ok: false,
      error: 'Approval request "a9" names tool call "gone", which is not in the messages.',
    });
  });

  it('does not report a provider-executed call as waiting: the provider answers it', () => {
    const history: ModelMessage[] = [
      {
        role: 'assistant',
        content: [
          { ...deployCall, providerExecuted: true },
          { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c2' },
        ],
      },
    ];
    expect(collectToolApprovals(history)).toEqual({ ok: true, answered: [], unanswered: [] });
  });
});
