import { z } from 'zod';
import { modelSettingsSchema, type ModelSettings } from '../protocol';
import { defineTool, type Tool } from './define-tool';

/** What an author writes to make an agent another agent can call. */
export interface AgentToolDefinition {
  /** The name the calling model uses, and the sub-agent's name in paths ("reader → writeFile notes.md"). */
  name: string;
  /** What the sub-agent does, for the calling model. */
  description: string;
  /** The sub-agent's system message. */
  instructions: string;
  /** The tools the sub-agent may call (agent tools among them); the worker registers them with this tool. */
  tools: readonly Tool[];
  /**
   * MCP servers (by their names in the worker's `mcpServers`) whose every tool the sub-agent may call too
   * (`fs__read_file`, ...): the worker learns them when it connects, so they are named here rather than listed.
   */
  mcpServers?: readonly string[];
  /** The sub-agent's model settings; the calling turn's when absent. */
  model?: ModelSettings;
  /** The sub-agent's most model calls (default 10), within what the tree of agents has left. */
  maxSteps?: number;
  /** Whether a person must approve handing the task over at all (default false: its own calls still ask). */
  needsApproval?: boolean;
}

/** The input every agent tool takes: the task, in the calling model's words. */
export const agentToolInputSchema = z.object({
  task: z.string().min(1).max(100_000).describe('What the sub-agent should do, with everything it needs to know.'),
});

/**
 * Defines an agent as a tool: a call runs a child turn (a child workflow with `tools`, `instructions` and the model
 * settings given here) and the child's final answer is the call's output. When the child fails, runs out of steps
 * or is stopped, the calling model reads an `error-text` instead. See docs/sub-agents.md.
 *
 * @example
 * const reader = defineAgentTool({
 *   name: 'reader',
 *   description: 'Reads files and reports what they say',
 *   instructions: 'You read files and summarise them.',
 *   tools: [readFile, writeFile],
 * });
 */
export function defineAgentTool(definition: AgentToolDefinition): Tool {
  if (typeof definition.instructions !== 'string' || definition.instructions.trim() === '') {
    throw new TypeError(`Agent tool "${definition.name}" needs instructions (its system message).`);
  }
  if (!Array.isArray(definition.tools)) throw new TypeError(`Agent tool "${definition.name}" needs a list of tools.`);
  const servers = definition.mcpServers ?? [];
  if (
    !Array.isArray(servers) ||
    !servers.every((server) => typeof server === 'string' && /^[a-zA-Z0-9_-]{1,64}$/.test(server))
  ) {
    throw new TypeError(`Agent tool "${definition.name}": mcpServers must be a list of MCP server names.`);
  }
  const model = definition.model === undefined ? undefined : modelSettingsSchema.parse(definition.model);
  if (definition.maxSteps !== undefined && !(Number.isInteger(definition.maxSteps) && definition.maxSteps >= 1)) {
    throw new TypeError(`Agent tool "${definition.name}": maxSteps must be a whole number of at least 1.`);
  }
  const tool = defineTool({
    name: definition.name,
    description: definition.description,
    inputSchema: agentToolInputSchema,
    needsApproval: definition.needsApproval ?? false,
    // Never called: the turn's workflow code starts the sub-agent as a child workflow.
    execute: () => {
      throw new Error(`Agent tool "${definition.name}" runs as a child turn, not in an activity.`);
    },
  });
  return {
    ...tool,
    agent: {
      instructions: definition.instructions,
      tools: [...definition.tools],
      ...(servers.length > 0 && { mcpServers: [...servers] }),
      ...(model && { model }),
      ...(definition.maxSteps !== undefined && { maxSteps: definition.maxSteps }),
    },
  };
}
