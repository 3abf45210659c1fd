import { queuedMessageChunks, queuedMessageText } from '../../../src/gateway/chat/queued-message';
import type { PendingToolApproval } from '../../../src/protocol';

const pending = (approvalId: string, toolName: string) => ({ approvalId, toolName }) as PendingToolApproval;

describe('queuedMessageText', () => {
  it('names the tools the message waits for', () => {
    expect(queuedMessageText([pending('a1', 'bash')])).toMatch(/^Your message is queued: the call to bash waits for/);
    expect(queuedMessageText([pending('a1', 'bash'), pending('a2', 'writeFile'), pending('a3', 'bash')])).toMatch(
      /^Your message is queued: 3 calls \(bash and writeFile\) wait for a decision/,
    );
  });
});

describe('queuedMessageChunks', () => {
  it('is one finished assistant message under the queued turn id, marked queued', () => {
    const chunks = queuedMessageChunks('chat:ana:c1/turn-2', [pending('a1', 'bash')]);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'text-start', 'text-delta', 'text-end', 'finish']);
    expect(chunks[0]).toEqual({
      type: 'start',
      messageId: 'chat:ana:c1/turn-2',
      messageMetadata: { tollgate: { queued: true, waitsFor: ['a1'] } },
    });
  });
});
