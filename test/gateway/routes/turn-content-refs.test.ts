import type { ModelMessage } from '../../../src/protocol';
import { contentRefsOfTurn } from '../../../src/gateway/routes/turn-content';

const ref = (digit: string) => `sha256:${digit.repeat(64)}`;

const stub = (contentRef: string, contentTurn?: string): ModelMessage => ({
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: 'call-1',
      toolName: 'lookup',
      output: { type: 'text', value: 'preview…' },
      providerOptions: { tollgate: { contentRef, ...(contentTurn !== undefined && { contentTurn }) } },
    },
  ],
});

describe('contentRefsOfTurn', () => {
  it("counts the refs of a turn's own outputs, and stubs from before stubs named their turn", () => {
    expect(contentRefsOfTurn('turn-a', [stub(ref('a'), 'turn-a'), stub(ref('b'))])).toEqual(
      new Set([ref('a'), ref('b')]),
    );
  });

  it('does not count a stub that names another turn, or a part that is no stub', () => {
    const messages: ModelMessage[] = [
      stub(ref('c'), 'turn-b'),
      { role: 'user', content: ref('d') },
      { role: 'assistant', content: [{ type: 'text', text: ref('e') }] },
    ];
    expect(contentRefsOfTurn('turn-a', messages)).toEqual(new Set());
  });
});
