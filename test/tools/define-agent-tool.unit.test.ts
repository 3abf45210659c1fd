import { z } from 'zod';
import { defineAgentTool, defineTool, ToolRegistry } from '../../src/tools';

const readFile = defineTool({
  name: 'readFile',
  description: 'Reads a file',
  inputSchema: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
});
const reader = defineAgentTool({
  name: 'reader',
  description: 'Reads files',
  instructions: 'You read files.',
  tools: [readFile],
});

describe('defineAgentTool', () => {
  it('makes a tool that takes a task and carries its sub-agent', () => {
    expect(reader.inputSchema.safeParse({ task: 'read notes.md' }).success).toBe(true);
    expect(reader.inputSchema.safeParse({}).success).toBe(false);
    expect(reader.agent).toMatchObject({ instructions: 'You read files.', tools: [readFile] });
  });

  it('refuses an agent without instructions or with a bad step limit', () => {
    expect(() => defineAgentTool({ name: 'a', description: 'd', instructions: ' ', tools: [] })).toThrow(
      /needs instructions/,
    );
    expect(() => defineAgentTool({ name: 'a', description: 'd', instructions: 'i', tools: [], maxSteps: 0 })).toThrow(
      /maxSteps/,
    );
  });

  it("registers an agent's tools with it, shared ones once, so the worker can run the sub-agent's calls", () => {
    const writer = defineAgentTool({
      name: 'writer',
      description: 'Writes',
      instructions: 'You write.',
      tools: [reader, readFile],
    });
    const registry = new ToolRegistry([writer, readFile]);
    expect(registry.names()).toEqual(['writer', 'reader', 'readFile']);
  });

  it('still refuses two different tools of one name, one of them inside an agent', () => {
    const other = defineTool({ ...readFile, inputSchema: z.object({}), execute: () => 'x' });
    expect(() => new ToolRegistry([reader, other])).toThrow(/Two tools are named "readFile"/);
  });
});
