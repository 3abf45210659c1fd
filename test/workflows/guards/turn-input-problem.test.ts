import { turnInputProblem } from '../../../src/workflows/guards/turn-input-problem';

describe('turnInputProblem', () => {
  it('reads the inputs turns are started with', () => {
    expect(turnInputProblem({ messages: [{ role: 'user', content: 'run ls' }] })).toBeUndefined();
    expect(
      turnInputProblem({
        transcript: `sha256:${'a'.repeat(64)}`,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        maxSteps: 3,
      }),
    ).toBeUndefined();
  });

  it.each([
    ['null', null],
    ['a string', 'run ls'],
    ['no messages', {}],
    ['messages: null', { messages: null }],
    ['no message at all', { messages: [] }],
    ['a message that is a number', { messages: [7] }],
    ['a message without a role', { messages: [{ content: 'hi' }] }],
    ['content that is a number', { messages: [{ role: 'user', content: 7 }] }],
    ['a part that is null', { messages: [{ role: 'user', content: [null] }] }],
  ])('names what is wrong with %s', (_name, input) => {
    expect(turnInputProblem(input)).toEqual(expect.any(String));
  });

  it('refuses messages nested 100,000 deep without walking them recursively', () => {
    const content = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(turnInputProblem({ messages: [{ role: 'user', content }] })).toBe(
      'the input is nested deeper than 256 levels',
    );
  });
});
