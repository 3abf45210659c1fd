import type { UIMessage } from 'ai';
import { subAgentCallsByOwner } from '../../examples/chat/sub-agent-calls';

/** An assistant message with two calls of the reader agent: the first done, the second still running. */
function message(...subAgentCalls: Array<Record<string, unknown>>): UIMessage {
  return {
    id: 'turn-1',
    role: 'assistant',
    parts: [
      { type: 'step-start' },
      {
        type: 'tool-reader',
        toolCallId: 'agent-call-1',
        state: 'input-available',
        input: { task: 'one' },
      },
      {
        type: 'tool-reader',
        toolCallId: 'agent-call-2',
        state: 'input-available',
        input: { task: 'two' },
      },
      ...subAgentCalls.map((data) => ({
        type: 'data-sub-agent-approval' as const,
        id: String(data.approvalId),
        data,
      })),
    ],
  } as UIMessage;
}

describe('subAgentCallsByOwner', () => {
  it('draws each sub-agent call inside the agent call it waits under when the same agent tool runs twice at once', () => {
    const owners = subAgentCallsByOwner(
      message(
        { state: 'waiting', approvalId: 'b', path: ['reader'], toolName: 'writeFile', agentToolCallId: 'agent-call-2' },
        { state: 'waiting', approvalId: 'a', path: ['reader'], toolName: 'writeFile', agentToolCallId: 'agent-call-1' },
      ),
    );

    expect([...owners].map(([index, calls]) => [index, calls.map((call) => call.approvalId)])).toEqual([
      [2, ['b']],
      [1, ['a']],
    ]);
  });

  it('shows nothing for a call whose agent call is not on the page yet, rather than under another call', () => {
    const owners = subAgentCallsByOwner(
      message({ state: 'waiting', approvalId: 'c', path: ['reader'], agentToolCallId: 'agent-call-3' }),
    );
    expect(owners.size).toBe(0);
  });

  it('reads a stream without the call id by the tool its path starts with, the running call first', () => {
    const owners = subAgentCallsByOwner(message({ state: 'waiting', approvalId: 'd', path: ['reader'] }));
    expect([...owners.keys()]).toEqual([1]);
  });
});
