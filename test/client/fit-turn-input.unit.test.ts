import { fitTurnInput, isTurnInputTooLargeError } from '../../src/client/fit-turn-input';
import type { ModelMessage } from '../../src/protocol';

const limits = { inlineBytes: 1000 };
const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('fitTurnInput', () => {
  it('sends an input that fits inline as it is', () => {
    expect(fitTurnInput({ messages: [user('hi')] }, limits)).toEqual({ kind: 'inline' });
  });

  it('stores the messages before the last user message when the whole is too large', () => {
    const messages = [user('x'.repeat(800)), assistant('ok'), user('y'.repeat(800)), assistant('ok'), user('now')];
    expect(fitTurnInput({ messages }, limits)).toEqual({
      kind: 'split',
      stored: messages.slice(0, 4),
      inline: messages.slice(4),
    });
  });

  it('keeps a halted turn continuation (after the last user message) inline', () => {
    const continuation: ModelMessage[] = [
      assistant('calling'),
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
    ];
    const messages = [user('x'.repeat(1500)), assistant('ok'), user('go'), ...continuation];
    const plan = fitTurnInput({ messages }, limits);
    expect(plan).toMatchObject({ kind: 'split', inline: [user('go'), ...continuation] });
  });

  it('refuses, naming the limit, when the last user message alone is too large', () => {
    const attempt = () => fitTurnInput({ messages: [user('a'), assistant('ok'), user('z'.repeat(2000))] }, limits);
    expect(attempt).toThrow(/last message is 2 KiB .*at most 1,000 bytes .*Temporal refuses payloads over 2 MB/);
    let thrown: unknown;
    try {
      attempt();
    } catch (error) {
      thrown = error;
    }
    expect(isTurnInputTooLargeError(thrown)).toBe(true);
  });

  it('refuses a single message that is too large, with nothing to store', () => {
    expect(() => fitTurnInput({ messages: [user('z'.repeat(2000))] }, limits)).toThrow(/at most 1,000 bytes/);
  });
});
