import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { resolveMcpToolRules, type OperatorPolicy } from '../../policy';
import { defineTool, type Tool } from '../define-tool';
import { jsonSchemaInput } from './json-schema-input';
import { mcpResultOutput } from './mcp-result-output';
import { mcpServerConfigsSchema, type McpServerConfigs } from './mcp-server-config';
import { McpServerConnection } from './mcp-server-connection';
import { mcpToolName } from './mcp-tool-name';

/** The longest tool description passed on to the model; a server's text is untrusted and may be long. */
const maximumDescriptionCharacters = 4_000;

/** The tools of the worker's MCP servers, ready for the registry, and the connections behind them. */
export interface McpToolSource {
  /** Every tool of every server that has answered so far, namespaced `server__tool`. */
  readonly tools: readonly Tool[];
  /** One line per server, as logged: how many tools and which ask, or why it is unavailable. */
  describe(): string[];
  /** Gives `registry` the tools of servers that answer later (one down at start-up is tried again). */
  attach(registry: { add(tools: readonly Tool[]): void }): void;
  /** Closes every connection (stdio servers' processes end) and stops trying servers that are down. */
  close(): Promise<void>;
}

const defaultRetryIntervalMs = 30_000;

/**
 * Connects to the operator's MCP servers (all at once, each within its connect timeout), lists their tools and
 * makes each one a Tollgate tool: named `server__tool`, checked against the server's input schema before a call is
 * planned, approved as the operator's `mcpServers` rules or, failing them, its annotations say, and run through the
 * MCP client when approved. A server that does not answer is logged and tried again every `retryInterval`; it
 * never stops the worker, and its tools join the registries the source is attached to once it answers.
 *
 * @example
 * const mcp = await connectMcpServers({ fs: { command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/srv'] } });
 * const worker = await createTollgateWorker({ connection, taskQueue, tools, model, mcpServers: mcp });
 */
export async function connectMcpServers(
  servers: McpServerConfigs,
  options: { policy?: OperatorPolicy; log?: (line: string) => void } = {},
): Promise<McpToolSource> {
  const checked = mcpServerConfigsSchema.safeParse(servers);
  if (!checked.success) throw new TypeError(`The MCP servers are not valid:\n${z.prettifyError(checked.error)}`);
  const policy = options.policy ?? {};
  const log = options.log ?? ((line: string) => console.log(line));
  for (const name of Object.keys(policy.mcpServers ?? {})) {
    if (!(name in servers))
      log(`The policy has rules for MCP server "${name}", which is not configured; they apply to nothing.`);
  }
  const connections = Object.entries(checked.data).map(([name, config]) => new McpServerConnection(name, config, log));
  const tools: Tool[] = [];
  const lines = new Map<string, string>();
  const registries: Array<{ add(tools: readonly Tool[]): void }> = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  /** Lists a server's tools and adds them; false when it does not answer. */
  async function load(connection: McpServerConnection, late: boolean): Promise<boolean> {
    let listed: McpTool[];
    try {
      listed = await connection.listTools();
    } catch (error) {
      await connection.reset();
      if (!late) {
        lines.set(connection.name, `${(error as Error).message}: its tools are offered once it answers.`);
      }
      return false;
    }
    if (closed) return true;
    const { tools: made, refused } = serverTools(connection, listed, policy, log);
    if (refused !== undefined) {
      lines.set(connection.name, refused);
      if (late) log(refused);
      return true;
    }
    tools.push(...made);
    for (const registry of registries) {
      try {
        registry.add(made);
      } catch (error) {
        log(`MCP server "${connection.name}": ${(error as Error).message}`);
      }
    }
    const asking = made.filter((tool) => tool.needsApproval === true).map((tool) => tool.name);
    lines.set(
      connection.name,
      `MCP server "${connection.name}"${late ? ' answered' : ''}: ${made.length} tools; ` +
        `${asking.length > 0 ? `asking: ${asking.join(', ')}` : 'none asks'}.`,
    );
    if (late) log(lines.get(connection.name) as string);
    return true;
  }

  function retryLater(connection: McpServerConnection): void {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void load(connection, true).then((loaded) => {
        if (!loaded) retryLater(connection);
      });
    }, connection.retryIntervalMs ?? defaultRetryIntervalMs);
    // Trying a server again never keeps the process alive on its own.
    timer.unref();
    timers.add(timer);
  }

  const loaded = await Promise.all(connections.map((connection) => load(connection, false)));
  connections.forEach((connection, index) => {
    if (!loaded[index]) retryLater(connection);
  });
  for (const connection of connections) log(lines.get(connection.name) as string);
  return {
    get tools() {
      return [...tools];
    },
    describe: () => connections.flatMap((connection) => lines.get(connection.name) ?? []),
    attach(registry) {
      registries.push(registry);
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

/**
 * A server's tools as Tollgate tools; the policy's rules for tools the server lacks are logged. Two tools that become
 * one name (`write.file` and `write_file` are both `lying__write_file`) refuse the whole server, with the reason: the
 * operator's rules name the server's tools, and keeping either one could run the tool a rule did not mean.
 */
function serverTools(
  connection: McpServerConnection,
  listed: readonly McpTool[],
  policy: OperatorPolicy,
  log: (line: string) => void,
): { tools: Tool[]; refused?: string } {
  const names = new Map<string, string[]>();
  for (const mcpTool of listed) {
    const name = mcpToolName(connection.name, mcpTool.name);
    names.set(name, [...(names.get(name) ?? []), mcpTool.name]);
  }
  const clashes = [...names].filter(([, tools]) => tools.length > 1);
  if (clashes.length > 0) {
    return {
      tools: [],
      refused:
        `MCP server "${connection.name}" is left out, none of its tools offered: ` +
        clashes
          .map(([name, tools]) => `${tools.map((tool) => JSON.stringify(tool)).join(' and ')} are all named ${name}`)
          .join('; ') +
        ". A rule for one would guard the other's calls too, or none. Rename them on the server, or remove the server.",
    };
  }
  const made: Tool[] = [];
  for (const mcpTool of listed) {
    const tool = toTollgateTool(connection, mcpTool, policy, log);
    if (tool) made.push(tool);
  }
  const listedNames = new Set(listed.map((tool) => tool.name));
  for (const name of Object.keys(policy.mcpServers?.[connection.name]?.tools ?? {})) {
    if (!listedNames.has(name))
      log(`The policy has rules for ${connection.name}.${name}, a tool MCP server "${connection.name}" does not list.`);
  }
  return { tools: made };
}

function toTollgateTool(
  connection: McpServerConnection,
  mcpTool: McpTool,
  policy: OperatorPolicy,
  log: (line: string) => void,
): Tool | undefined {
  const name = mcpToolName(connection.name, mcpTool.name);
  const input = jsonSchemaInput(mcpTool.inputSchema);
  if (input.unchecked !== undefined) {
    log(`MCP tool ${name}: its input schema cannot be checked here (${input.unchecked}); the server checks it.`);
  }
  const rules = resolveMcpToolRules({
    policy,
    server: connection.name,
    tool: mcpTool.name,
    ...(mcpTool.annotations && { annotations: mcpTool.annotations }),
  });
  const description = (mcpTool.description ?? mcpTool.title ?? mcpTool.annotations?.title ?? '').trim();
  try {
    return defineTool({
      name,
      description:
        description.length > 0
          ? description.slice(0, maximumDescriptionCharacters)
          : `Tool ${mcpTool.name} of MCP server ${connection.name}.`,
      inputSchema: input.inputSchema,
      inputJsonSchema: input.parameters,
      outputFormat: 'tool-result',
      needsApproval: rules.needsApproval,
      idempotent: rules.idempotent,
      ...(rules.approvalRules && { approvalRules: rules.approvalRules }),
      ...(rules.approvalTimeout !== undefined && { approvalTimeout: rules.approvalTimeout }),
      ...(rules.onExpire && { onExpire: rules.onExpire }),
      execute: async (args, context) => {
        try {
          const result = await connection.callTool(mcpTool.name, args as Record<string, unknown>, {
            signal: context.abortSignal,
            onProgress: () => context.heartbeat(),
          });
          return mcpResultOutput(result);
        } catch (error) {
          throw new Error(describeCallError(connection, mcpTool.name, error));
        }
      },
    });
  } catch (error) {
    log(`MCP tool ${name} is left out: ${(error as Error).message}`);
    return undefined;
  }
}

/** An MCP failure as a sentence the model can act on; a call that timed out may have taken effect. */
function describeCallError(connection: McpServerConnection, tool: string, error: unknown): string {
  const { name, code, message } = (error ?? {}) as { name?: string; code?: unknown; message?: string };
  if (name === 'McpServerUnavailable') {
    return `${message ?? `MCP server "${connection.name}" is unavailable`}: the ${tool} call was not made. Try again later.`;
  }
  if (code === -32001) {
    return (
      `MCP server "${connection.name}" did not answer the ${tool} call within ${connection.callTimeoutMs} ms. ` +
      'It may or may not have taken effect; check before trying again.'
    );
  }
  if (code === -32000) {
    return `The connection to MCP server "${connection.name}" closed during the ${tool} call; it may or may not have taken effect.`;
  }
  if (typeof code === 'number') return `MCP server "${connection.name}" refused the ${tool} call: ${message ?? ''}`;
  return (
    `MCP server "${connection.name}" could not be reached for the ${tool} call (${message ?? String(error)}); ` +
    'its next call tries to connect again.'
  );
}
