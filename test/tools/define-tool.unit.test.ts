import { z } from 'zod';
import { defineTool, ToolRegistry } from '../../src/tools';

const base = { description: 'd', inputSchema: z.object({ a: z.string() }), execute: () => 'ok' };

describe('defineTool', () => {
  it("normalises approvalMode: 'always_require' to needsApproval true and defaults to no approval", () => {
    expect(defineTool({ ...base, name: 'a', approvalMode: 'always_require' }).needsApproval).toBe(true);
    expect(defineTool({ ...base, name: 'b', approvalMode: 'never_require' }).needsApproval).toBe(false);
    expect(defineTool({ ...base, name: 'c' }).needsApproval).toBe(false);
  });

  it('refuses settings that disagree, a bad name, or a missing schema', () => {
    expect(() => defineTool({ ...base, name: 'a', needsApproval: false, approvalMode: 'always_require' })).toThrow(
      /disagree/,
    );
    expect(() => defineTool({ ...base, name: 'bad name!' })).toThrow(/Tool name "bad name!" is invalid/);
    expect(() => defineTool({ ...base, name: 'x', inputSchema: {} as never })).toThrow(/zod inputSchema/);
    expect(() => defineTool({ ...base, name: 'y', approvalMode: 'sometimes' as never })).toThrow(
      /approvalMode must be/,
    );
  });
});

describe('ToolRegistry', () => {
  it('describes tools with their JSON Schema and approval requirement, and names unknown tools', () => {
    const registry = new ToolRegistry([
      defineTool({ ...base, name: 'always', needsApproval: true }),
      defineTool({ ...base, name: 'perCall', needsApproval: async () => true }),
    ]);
    expect(registry.manifest()).toEqual([
      expect.objectContaining({
        name: 'always',
        approval: 'always',
        parameters: expect.objectContaining({ type: 'object' }),
      }),
      expect.objectContaining({ name: 'perCall', approval: 'per-call' }),
    ]);
    expect(() => registry.manifest(['always', 'ghost'])).toThrow(
      /Unknown tool "ghost"; this worker has "always", "perCall"/,
    );
    expect(
      () => new ToolRegistry([defineTool({ ...base, name: 'same' }), defineTool({ ...base, name: 'same' })]),
    ).toThrow(/unique/);
  });
});
