import { z } from 'zod';
import { subAgentPlanOf } from '../../../src/activities/planning/plan-tool-calls';
import { defineAgentTool, defineTool } from '../../../src/tools';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) => query,
});

describe("an agent tool's sub-agent plan", () => {
  it("offers the sub-agent its own tools and every tool the worker has of the agent's MCP servers", () => {
    const reader = defineAgentTool({
      name: 'reader',
      description: 'Reads',
      instructions: 'You read.',
      tools: [lookup],
      mcpServers: ['fs'],
    });
    // The worker's registry as it is once its MCP servers answered: tools named `<server>__<tool>`.
    const registered = ['lookup', 'fs__read_file', 'fs__write_file', 'fsx__delete', 'github__create_issue', 'reader'];

    expect(subAgentPlanOf(reader, registered)?.tools).toEqual(['lookup', 'fs__read_file', 'fs__write_file']);
  });

  it('refuses MCP server names that are not names, when the agent is defined', () => {
    const define = (mcpServers: unknown) => () =>
      defineAgentTool({
        name: 'reader',
        description: 'Reads',
        instructions: 'You read.',
        tools: [],
        mcpServers: mcpServers as string[],
      });
    expect(define(['fs', 'a b'])).toThrow(/mcpServers must be a list of MCP server names/);
    expect(define('fs')).toThrow(/mcpServers must be a list/);
    expect(define(['fs'])).not.toThrow();
  });
});
