import { chatMessageLimits, formatBytes, messageTooLarge } from '../../../src/gateway/chat/chat-message-limits';

describe('messageTooLarge', () => {
  it('accepts a message at the text limit', () => {
    expect(messageTooLarge('a'.repeat(chatMessageLimits.textCharacters))).toBeUndefined();
  });

  it('refuses text over 100,000 characters and names the limit', () => {
    expect(messageTooLarge('a'.repeat(100_001))).toBe(
      'The message has 100,001 characters; a chat message may have at most 100,000. Shorten it, or attach the text as a file.',
    );
  });

  it('refuses files that would take the message past 1 MiB, well below Temporal’s 2 MB payload limit', () => {
    const file = { type: 'file' as const, mediaType: 'text/plain', data: 'QUJD'.repeat(400_000) };
    expect(messageTooLarge([{ type: 'text', text: 'see attached' }, file])).toMatch(
      /^The message is 1\.5 MiB \(1,600,\d{3} bytes\); a chat message with its files may be at most 1 MiB \(1,048,576 bytes\)\./,
    );
  });
});

describe('formatBytes', () => {
  it('reads as a size a person knows', () => {
    expect(formatBytes(4 * 1024 * 1024)).toBe('4 MiB (4,194,304 bytes)');
    expect(formatBytes(512)).toBe('512 bytes');
  });
});
