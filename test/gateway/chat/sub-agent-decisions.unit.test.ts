import type { UIMessage } from 'ai';
import { subAgentDecisionsOf } from '../../../src/gateway/chat/sub-agent-decisions';

function messageWith(...data: unknown[]): UIMessage {
  return {
    id: 'chat:ana:c/turn-1',
    role: 'assistant',
    parts: data.map((datum, index) => ({ type: 'data-sub-agent-approval', id: `a${index}`, data: datum })),
  } as UIMessage;
}

describe('subAgentDecisionsOf', () => {
  it("reads the decisions a page marked on sub-agents' calls, with their reasons", () => {
    expect(
      subAgentDecisionsOf(
        messageWith(
          { state: 'responded', approvalId: 'abc.1', approved: true },
          { state: 'responded', approvalId: 'abc.2', approved: false, reason: 'not now' },
        ),
      ),
    ).toEqual([
      { approvalId: 'abc.1', approved: true },
      { approvalId: 'abc.2', approved: false, reason: 'not now' },
    ]);
  });

  it('takes nothing from calls still waiting or settled, or from parts that are not decisions', () => {
    expect(
      subAgentDecisionsOf(
        messageWith(
          { state: 'waiting', approvalId: 'abc.1' },
          { state: 'settled', approvalId: 'abc.2' },
          { state: 'responded', approvalId: 'abc.3', approved: 'yes' },
          { state: 'responded', approvalId: 'no spaces allowed', approved: true },
          { state: 'responded', approvalId: 'x'.repeat(1_001), approved: true },
          null,
          'responded',
        ),
      ),
    ).toEqual([]);
  });

  it('reads at most 20, each approval once, and cuts a long reason', () => {
    const many = Array.from({ length: 30 }, (_, index) => ({
      state: 'responded',
      approvalId: `abc.${index % 25}`,
      approved: false,
      reason: 'r'.repeat(5_000),
    }));
    const decisions = subAgentDecisionsOf(messageWith(...many));
    expect(decisions).toHaveLength(20);
    expect(new Set(decisions.map((decision) => decision.approvalId)).size).toBe(20);
    expect(decisions[0]?.reason).toHaveLength(1_000);
  });
});
