import { argumentSummary, argumentsInBrief, argumentsLine } from '../../src/protocol/argument-summary';

describe('argumentsInBrief', () => {
  it('names a call by its first plain argument, on one line', () => {
    expect(argumentsInBrief({ command: 'ls -la' })).toBe('ls -la');
    expect(argumentsInBrief({ path: 'notes.txt', content: 'hello\nworld' })).toBe('notes.txt');
    expect(argumentsInBrief({ script: 'echo a\n  echo b' })).toBe('echo a echo b');
  });

  it('skips nested and empty values, and says nothing when there is no plain value', () => {
    expect(argumentsInBrief({ options: { force: true }, target: '', path: 'build' })).toBe('build');
    expect(argumentsInBrief({ list: [1, 2] })).toBe('');
    expect(argumentsInBrief(undefined)).toBe('');
    expect(argumentsInBrief('just text')).toBe('just text');
  });

  it('cuts a long value with an ellipsis, reading only its start', () => {
    const brief = argumentsInBrief({ command: 'x'.repeat(5_000_000) });
    expect(brief).toHaveLength(40);
    expect(brief.endsWith('…')).toBe(true);
  });
});

describe('argumentsLine', () => {
  it('shows every argument with plain values as they are and counts nested ones', () => {
    expect(argumentsLine({ path: 'notes.txt', lines: [1, 2], meta: { a: 1 }, force: true })).toBe(
      'path: notes.txt, lines: [2 items], meta: {1 key}, force: true',
    );
  });

  it('quotes text that would blur into the list, and stays within its length', () => {
    expect(argumentsLine({ content: 'hello, world', command: 'ls -la' })).toBe(
      'content: "hello, world", command: ls -la',
    );
    const line = argumentsLine(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, 'v'.repeat(50)])));
    expect(line.length).toBeLessThanOrEqual(160);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('argumentSummary', () => {
  it('lists each argument by name, long values cut with their length', () => {
    expect(argumentSummary({ path: 'a.txt', content: 'x'.repeat(300), force: true, tags: ['a', 'b'] })).toEqual([
      { name: 'path', value: 'a.txt' },
      { name: 'content', value: `${'x'.repeat(200)}… (300 characters)` },
      { name: 'force', value: 'true' },
      { name: 'tags', value: '["a","b"]' },
    ]);
  });

  it('reads an input that is not an object, or empty, as one line', () => {
    expect(argumentSummary('rm -rf /tmp/x')).toEqual([{ name: 'input', value: 'rm -rf /tmp/x' }]);
    expect(argumentSummary({})).toEqual([{ name: 'input', value: '(no arguments)' }]);
  });

  it('shows at most 30 arguments and counts the rest', () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`a${index}`, index]));
    const lines = argumentSummary(many);
    expect(lines).toHaveLength(31);
    expect(lines[30]).toEqual({ name: '…', value: '10 more arguments; see the raw input' });
  });
});
