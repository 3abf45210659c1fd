import { z } from 'zod';
import type { ApprovalRules } from '../protocol';
import type { Tool } from './define-tool';
import { approvalRequirementOf, type ApprovalRequirement } from './resolve-approval-requirement';

/** What the workflow and the model need to know about a tool, with no code in it. */
export interface ToolManifestEntry {
  name: string;
  description: string;
  /** JSON Schema of the input, as the model sees it. */
  parameters: Record<string, unknown>;
  approval: ApprovalRequirement;
  /** `client` tools are run by whoever submits their output, not by the worker. Absent means `worker`. */
  executor?: 'worker' | 'client';
  /** The tool's own approval timeout, in milliseconds. */
  approvalTimeoutMs?: number;
  /** The tool's own expiry rule. */
  onExpire?: 'deny' | 'fail';
  /** The tool's own approvers, quorum and notifications. */
  approvalRules?: ApprovalRules;
}

/** The worker's tools by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly entries = new Map<string, ToolManifestEntry>();

  constructor(tools: readonly Tool[]) {
    for (const tool of withSubAgentTools(tools)) {
      if (this.tools.has(tool.name))
        throw new TypeError(`Two tools are named "${tool.name}"; tool names must be unique.`);
      this.tools.set(tool.name, tool);
    }
  }

  /** Adds tools that became known after start-up (an MCP server that answered late); names stay unique. */
  add(added: readonly Tool[]): void {
    const tools = withSubAgentTools(added).filter((tool) => this.tools.get(tool.name) !== tool);
    const taken = tools.filter(
      (tool, index) => this.tools.has(tool.name) || tools.findIndex((other) => other.name === tool.name) !== index,
    );
    if (taken.length > 0) throw new TypeError(`Two tools are named "${taken[0]?.name}"; tool names must be unique.`);
    for (const tool of tools) this.tools.set(tool.name, tool);
  }

  /** The tool called `name`, or undefined. */
  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /** All tool names, in registration order. */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The manifest of the named tools (all when `names` is absent); an unknown name is an error. */
  manifest(names?: readonly string[]): ToolManifestEntry[] {
    const selected = names ?? this.names();
    const unknown = selected.filter((name) => !this.tools.has(name));
    if (unknown.length > 0) {
      throw new TypeError(
        `Unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}; ` +
          `this worker has ${
            this.names()
              .map((name) => `"${name}"`)
              .join(', ') || 'no tools'
          }.`,
      );
    }
    return selected.map((name) => this.entryOf(name));
  }

  /** One tool's manifest entry, made once: its JSON Schema is the same on every step of every turn. */
  private entryOf(name: string): ToolManifestEntry {
    const known = this.entries.get(name);
    if (known) return known;
    const tool = this.tools.get(name) as Tool;
    const entry: ToolManifestEntry = {
      name: tool.name,
      description: tool.description,
      parameters: tool.inputJsonSchema ?? toJsonSchema(tool.inputSchema),
      approval: approvalRequirementOf(tool.needsApproval as never),
      ...(tool.executor === 'client' && { executor: 'client' as const }),
      ...(tool.approvalTimeoutMs !== undefined && { approvalTimeoutMs: tool.approvalTimeoutMs }),
      ...(tool.onExpire && { onExpire: tool.onExpire }),
      ...(tool.approvalRules && { approvalRules: tool.approvalRules }),
    };
    this.entries.set(name, entry);
    return entry;
  }
}

/**
 * The tools with every agent tool's own tools after it, all the way down: the worker runs a sub-agent's calls, so it
 * must know them. A tool object met twice (two agents sharing `readFile`) counts once; two different tools of one
 * name are still a clash.
 */
export function withSubAgentTools(tools: readonly Tool[]): Tool[] {
  const seen = new Set<Tool>();
  const all: Tool[] = [];
  const visit = (tool: Tool) => {
    if (seen.has(tool)) return;
    seen.add(tool);
    all.push(tool);
    for (const sub of tool.agent?.tools ?? []) visit(sub);
  };
  for (const tool of tools) visit(tool);
  return all;
}

function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return jsonSchema;
}
