import { maxStreamPieces, splitIntoPieces, splitIntoWords } from '../../../src/dev/model-server/chat-completion-stream';

describe('the scripted model stream pieces', () => {
  it('sends a short text a word at a time and arguments 16 characters at a time', () => {
    expect(splitIntoWords('Hello there, world')).toEqual(['Hello ', 'there, ', 'world']);
    expect(splitIntoPieces('{"query":"abcdefghijklmnop"}', 16)).toEqual(['{"query":"abcdef', 'ghijklmnop"}']);
  });

  it('sends megabytes in at most a thousand pieces, which still make up the whole', () => {
    const text = `${'word '.repeat(600_000)}the end`;
    const words = splitIntoWords(text);
    expect(words.length).toBeLessThanOrEqual(maxStreamPieces);
    expect(words.join('')).toBe(text);
    const argumentsText = JSON.stringify({ query: 'q'.repeat(3 * 1024 * 1024) });
    const pieces = splitIntoPieces(argumentsText, 16);
    expect(pieces.length).toBeLessThanOrEqual(maxStreamPieces);
    expect(pieces.join('')).toBe(argumentsText);
  });
});
