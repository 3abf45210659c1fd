import { boundToolArguments, toolArgumentLimits } from '../../../src/activities/model/bound-tool-arguments';
import type { AssistantContentPart } from '../../../src/protocol';

function call(toolCallId: string, input: unknown): AssistantContentPart {
  return { type: 'tool-call', toolCallId, toolName: 'writeFile', input };
}

describe('boundToolArguments', () => {
  it('keeps calls whose arguments fit, untouched', () => {
    const content = [{ type: 'text', text: 'writing' } as const, call('c1', { path: 'a.txt', content: 'hi' })];
    expect(boundToolArguments(content, [])).toEqual({ content, invalidToolCalls: [] });
  });

  it('refuses a call whose arguments are over the limit, keeping a preview and telling the model the limit', () => {
    const huge = { path: 'big.txt', content: 'x'.repeat(3 * 1024 * 1024) };
    const { content, invalidToolCalls } = boundToolArguments([call('c1', huge)], []);
    const [part] = content;
    expect(part).toMatchObject({ type: 'tool-call', toolCallId: 'c1', toolName: 'writeFile' });
    const input = (part as { input: unknown }).input as string;
    expect(typeof input).toBe('string');
    expect(input.length).toBeLessThan(toolArgumentLimits.previewCharacters + 100);
    expect(input).toMatch(
      /^\{"path":"big\.txt","content":"xxx[\s\S]*… \[3 MiB \(3,145,7\d\d bytes\) of arguments not kept\]$/,
    );
    expect(invalidToolCalls).toEqual([
      {
        toolCallId: 'c1',
        error: expect.stringMatching(/^The arguments of this call are 3 MiB .*at most 256 KiB.*did not run/),
      },
    ]);
  });

  it('admits calls in order while the step stays within its total, and refuses the rest', () => {
    const third = { content: 'y'.repeat(200 * 1024) };
    const content = [call('c1', third), call('c2', third), call('c3', third)];
    const bounded = boundToolArguments(content, []);
    expect(bounded.content.slice(0, 2)).toEqual(content.slice(0, 2));
    expect(bounded.invalidToolCalls).toEqual([
      {
        toolCallId: 'c3',
        error: expect.stringMatching(/all the calls of one step may be at most 512 KiB .* together/),
      },
    ]);
  });

  it('leaves calls the provider ran alone, and keeps earlier problems with other calls', () => {
    const provider = { ...call('p1', { q: 'z'.repeat(300 * 1024) }), providerExecuted: true } as AssistantContentPart;
    const earlier = { toolCallId: 'c0', error: 'not valid JSON' };
    expect(boundToolArguments([provider], [earlier])).toEqual({ content: [provider], invalidToolCalls: [earlier] });
  });
});
