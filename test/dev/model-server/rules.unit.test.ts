import { answerByRules, rulesHelpText, type ChatMessage, type ChatTool } from '../../../src/dev/model-server';

const demoToolNames = ['readFile', 'listDir', 'glob', 'grep', 'writeFile', 'editFile', 'bash'];
const demoTools: ChatTool[] = demoToolNames.map((name) => ({ type: 'function', function: { name } }));

function ask(content: string, tools: ChatTool[] = demoTools): ReturnType<typeof answerByRules> {
  return answerByRules(
    [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content },
    ],
    tools,
  );
}

describe('answerByRules', () => {
  it.each([
    ['write "hello world" to notes.txt', 'writeFile', { path: 'notes.txt', content: 'hello world' }],
    ['Write hello to README.md', 'writeFile', { path: 'README.md', content: 'hello' }],
    ["write 'a to b' to c.txt.", 'writeFile', { path: 'c.txt', content: 'a to b' }],
    ['run npm test -- --watch=false', 'bash', { command: 'npm test -- --watch=false' }],
    ['Run `ls -la`', 'bash', { command: 'ls -la' }],
    ['read src/index.ts', 'readFile', { path: 'src/index.ts' }],
    ['please read the file package.json', 'readFile', { path: 'package.json' }],
    ['list', 'listDir', { path: '.' }],
    ['ls', 'listDir', { path: '.' }],
    ['list src/dev', 'listDir', { path: 'src/dev' }],
    ['list the files in test', 'listDir', { path: 'test' }],
    ['find **/*.ts', 'glob', { pattern: '**/*.ts' }],
    ['grep TODO', 'grep', { pattern: 'TODO' }],
    ['grep "export function" in src', 'grep', { pattern: 'export function', path: 'src' }],
    ['replace foo with bar in a.txt', 'editFile', { path: 'a.txt', oldText: 'foo', newText: 'bar' }],
    [
      'Replace "old text" with "new text" in src/a.ts',
      'editFile',
      { path: 'src/a.ts', oldText: 'old text', newText: 'new text' },
    ],
  ])('reads %j as a %s call', (instruction, name, toolArguments) => {
    expect(ask(instruction)).toEqual({ toolCalls: [{ name, arguments: toolArguments }] });
  });

  it('turns instructions joined by "and" and "then" into several tool calls in one reply', () => {
    const reply = ask('write hi to a.txt and run cat a.txt then list src');

    expect(reply.toolCalls).toEqual([
      { name: 'writeFile', arguments: { path: 'a.txt', content: 'hi' } },
      { name: 'bash', arguments: { command: 'cat a.txt' } },
      { name: 'listDir', arguments: { path: 'src' } },
    ]);
  });

  it('keeps "and" inside an instruction when what follows is not another instruction', () => {
    expect(ask('write salt and pepper to pantry.txt').toolCalls).toEqual([
      { name: 'writeFile', arguments: { path: 'pantry.txt', content: 'salt and pepper' } },
    ]);
  });

  it('answers the last user message, not an earlier one', () => {
    const reply = answerByRules(
      [
        { role: 'user', content: 'read a.txt' },
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: [{ type: 'text', text: 'read b.txt' }] },
      ],
      demoTools,
    );

    expect(reply.toolCalls).toEqual([{ name: 'readFile', arguments: { path: 'b.txt' } }]);
  });

  it('does not call a tool that was not offered, and says so', () => {
    const reply = ask(
      'run rm -rf build',
      demoTools.filter((tool) => tool.function?.name !== 'bash'),
    );

    expect(reply.toolCalls).toBeUndefined();
    expect(reply.text).toContain('bash tool is not available');
  });

  it('calls the offered tools of a multi-instruction message and explains the one it skipped', () => {
    const reply = ask('read a.txt and run make', [{ type: 'function', function: { name: 'readFile' } }]);

    expect(reply.toolCalls).toEqual([{ name: 'readFile', arguments: { path: 'a.txt' } }]);
    expect(reply.text).toContain('"run make"');
  });

  it('explains what it can do when the message is not an instruction', () => {
    const reply = ask('What is the meaning of life?');

    expect(reply).toEqual({ text: rulesHelpText });
    expect(reply.text).toContain('write <text> to <file>');
  });

  it('summarises each tool result once results come back, and makes no more calls', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'write hi to a.txt and run ls' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'writeFile', arguments: '{}' } },
          { id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Wrote 2 bytes to a.txt' },
      { role: 'tool', tool_call_id: 'call_2', content: 'a.txt\nb.txt' },
    ];

    const reply = answerByRules(messages, demoTools);

    expect(reply.toolCalls).toBeUndefined();
    expect(reply.text).toBe('writeFile finished: Wrote 2 bytes to a.txt\nbash finished: a.txt b.txt');
  });

  it('says clearly that a denied call was not done and quotes the reason', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'run rm -rf / and read a.txt' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{}' } },
          { id: 'call_2', type: 'function', function: { name: 'readFile', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Tool execution denied: far too dangerous' },
      {
        role: 'tool',
        tool_call_id: 'call_2',
        content: JSON.stringify({ type: 'execution-denied', reason: 'approval expired' }),
      },
    ];

    const lines = answerByRules(messages, demoTools).text?.split('\n');

    expect(lines).toEqual([
      'bash was not done: the call was denied ("Tool execution denied: far too dangerous").',
      'readFile was not done: the call was denied ("approval expired").',
    ]);
  });

  it('truncates long tool output in the summary', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'read big.txt' },
      { role: 'tool', tool_call_id: 'call_unknown', content: 'x'.repeat(1000) },
    ];

    const text = answerByRules(messages, demoTools).text ?? '';

    expect(text.startsWith('tool finished: xxx')).toBe(true);
    expect(text.length).toBeLessThan(250);
  });
});
