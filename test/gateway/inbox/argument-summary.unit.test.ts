import { argumentSummary } from '../../../src/gateway/inbox/argument-summary';

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
