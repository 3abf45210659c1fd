import { boundAnswerText } from '../../../src/activities/model/bound-answer-text';
import type { AssistantContentPart } from '../../../src/protocol';

const limits = { stepBytes: 100 };

describe('boundAnswerText', () => {
  it('keeps an answer within the limit as it is', () => {
    const content: AssistantContentPart[] = [{ type: 'text', text: 'short' }];
    expect(boundAnswerText(content, limits)).toEqual(content);
  });

  it('cuts the part that crosses the limit with a note, drops later text, and keeps tool calls', () => {
    const call: AssistantContentPart = { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: {} };
    const content: AssistantContentPart[] = [
      { type: 'reasoning', text: 'r'.repeat(60) },
      { type: 'text', text: 't'.repeat(200) },
      call,
      { type: 'text', text: 'after' },
    ];
    const bounded = boundAnswerText(content, limits);
    expect(bounded).toHaveLength(3);
    expect(bounded[0]).toEqual(content[0]);
    expect(bounded[1]).toEqual({
      type: 'text',
      text: `${'t'.repeat(40)}… [the rest of the model's answer (165 bytes) was not kept: one step's text may be at most 100 bytes]`,
    });
    expect(bounded[2]).toEqual(call);
  });

  it('never leaves half a character at the cut', () => {
    const [part] = boundAnswerText([{ type: 'text', text: 'é'.repeat(100) }], { stepBytes: 5 });
    expect((part as { text: string }).text).toMatch(/^éé… \[/);
  });
});
