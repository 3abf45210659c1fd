import type { PendingToolApproval } from '../../../src/protocol';
import { TurnRenderer } from '../../../src/gateway/chat/turn-renderer';
import type { TurnSnapshot } from '../../../src/gateway/chat/turn-snapshot';

const waiting: PendingToolApproval = {
  approvalId: 'dHVybi0xL3JlYWRlci0x.a',
  toolCallId: 'child-call',
  toolName: 'writeFile',
  input: { path: 'notes.md' },
  requestedAt: '2026-11-27T04:00:00.000Z',
  step: 1,
  path: ['reader'],
};

function snapshot(pending: PendingToolApproval[]): TurnSnapshot {
  return {
    status: pending.length > 0 ? 'awaiting-approval' : 'running',
    closed: false,
    messages: [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'agent-call', toolName: 'reader', input: { task: 'read' } }],
      },
    ],
    pending,
    audit: [],
    awaitingOutput: [],
  };
}

describe('the chat stream of a turn whose sub-agent waits', () => {
  it("sends the sub-agent's call once as a data part with its path, settles on it, and marks it when it leaves", () => {
    const renderer = new TurnRenderer('turn-1');
    const first = renderer.render(snapshot([waiting]));

    expect(first).toContainEqual({
      type: 'data-sub-agent-approval',
      id: waiting.approvalId,
      data: expect.objectContaining({ state: 'waiting', path: ['reader'], toolName: 'writeFile' }),
    });
    // The page has everything until someone decides: the stream may pause.
    expect(renderer.isSettled(snapshot([waiting]))).toBe(true);
    expect(renderer.render(snapshot([waiting]))).toEqual([]);
    expect(renderer.render(snapshot([]))).toEqual([
      {
        type: 'data-sub-agent-approval',
        id: waiting.approvalId,
        data: { state: 'settled', approvalId: waiting.approvalId },
      },
    ]);
  });

  it('keeps streaming while another sub-agent still works, so its call shows when it asks too', () => {
    const renderer = new TurnRenderer('turn-1');
    renderer.render({ ...snapshot([waiting]), subAgentsWorking: 1 });

    // One call shown, but a second sub-agent of the same step has not asked yet: the stream does not pause.
    expect(renderer.isSettled({ ...snapshot([waiting]), subAgentsWorking: 1 })).toBe(false);
    const second: PendingToolApproval = { ...waiting, approvalId: 'dHVybi0xL3JlYWRlci0y.a', toolCallId: 'child-2' };
    expect(renderer.render(snapshot([waiting, second]))).toContainEqual(
      expect.objectContaining({ type: 'data-sub-agent-approval', id: second.approvalId }),
    );
    expect(renderer.isSettled(snapshot([waiting, second]))).toBe(true);
  });

  it('does not send it again to a client that continues from its own copy of the message', () => {
    const renderer = TurnRenderer.continuing({
      id: 'turn-1',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'data-sub-agent-approval', id: waiting.approvalId, data: { state: 'waiting' } },
      ],
    });
    expect(renderer.render(snapshot([waiting])).filter((chunk) => chunk.type === 'data-sub-agent-approval')).toEqual(
      [],
    );
  });
});

describe('the chat stream of a turn running the same agent tool twice at once', () => {
  it("names, on each sub-agent's call, the turn's own call it waits under", () => {
    const first = { ...waiting, approvalId: 'dHVybi0xL3JlYWRlci0x.a', agentToolCallId: 'agent-call-1' };
    const second = { ...waiting, approvalId: 'dHVybi0xL3JlYWRlci0y.b', agentToolCallId: 'agent-call-2' };
    const twoCalls: TurnSnapshot = {
      ...snapshot([second, first]),
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'agent-call-1', toolName: 'reader', input: { task: 'one' } },
            { type: 'tool-call', toolCallId: 'agent-call-2', toolName: 'reader', input: { task: 'two' } },
          ],
        },
      ],
    };
    const chunks = new TurnRenderer('turn-1').render(twoCalls);

    const owners = Object.fromEntries(
      chunks.flatMap((chunk) =>
        chunk.type === 'data-sub-agent-approval'
          ? [[chunk.id, (chunk.data as { agentToolCallId?: string }).agentToolCallId]]
          : [],
      ),
    );
    expect(owners).toEqual({ [first.approvalId]: 'agent-call-1', [second.approvalId]: 'agent-call-2' });
  });
});
