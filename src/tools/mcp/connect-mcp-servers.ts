import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { resolveMcpToolRules, type OperatorPolicy } from '../../policy';
import { defineTool, type Tool } from '../define-tool';
import { jsonSchemaInput } from './json-schema-input';
import { mcpResultOutput } from './mcp-result-output';
import type { McpServerConfigs } from './mcp-server-config';
import { McpServerConnection } from './mcp-server-connection';
import { mcpToolName } from './mcp-tool-name';

/** The longest tool description passed on to the model; a server's text is untrusted and may be long. */
const maximumDescriptionCharacters = 4_000;

/** The tools of the worker's MCP servers, ready for the registry, and the connections behind them. */
export interface McpToolSource {
  /** Every tool of every server that answered at start-up, namespaced `server__tool`. */
  readonly tools: readonly Tool[];
  /** One line per server, as logged at start-up: how many tools and which ask, or why it is unavailable. */
  describe(): string[];
  /** Closes every connection (stdio servers' processes end). */
  close(): Promise<void>;
}

/**
 * Connects to the operator's MCP servers (all at once, each within its connect timeout), lists their tools and
 * makes each one a Tollgate tool: named `server__tool`, checked against the server's input schema before a call is
 * planned, approved as the operator's `mcpServers` rules or, failing them, its annotations say, and run through the
 * MCP client when approved. A server that does not answer is logged and left out; it never stops the worker.
 *
 * @example
 * const mcp = await connectMcpServers({ fs: { command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/srv'] } });
 * const worker = await createTollgateWorker({ connection, taskQueue, tools, model, mcpServers: mcp });
 */
export async function connectMcpServers(
  servers: McpServerConfigs,
  options: { policy?: OperatorPolicy; log?: (line: string) => void } = {},
): Promise<McpToolSource> {
  const policy = options.policy ?? {};
  const log = options.log ?? ((line: string) => console.log(line));
  const connections = Object.entries(servers).map(([name, config]) => new McpServerConnection(name, config, log));
  const lines: string[] = [];
  const listed = await Promise.all(
    connections.map(async (connection) => {
      try {
        return { connection, tools: await connection.listTools() };
      } catch (error) {
        lines.push(`${(error as Error).message}: its tools are not offered until the worker restarts.`);
        await connection.close();
        return { connection, tools: [] as McpTool[] };
      }
    }),
  );
  const tools: Tool[] = [];
  for (const { connection, tools: serverTools } of listed) {
    if (serverTools.length === 0) continue;
    const made = new Map<string, Tool>();
    for (const mcpTool of serverTools) {
      const tool = toTollgateTool(connection, mcpTool, policy, log);
      if (!tool) continue;
      if (made.has(tool.name)) {
        log(
          `MCP server "${connection.name}": two tools are named ${tool.name} once made safe; the second is left out.`,
        );
        continue;
      }
      made.set(tool.name, tool);
    }
    tools.push(...made.values());
    const asking = [...made.values()].filter((tool) => tool.needsApproval === true).map((tool) => tool.name);
    lines.push(
      `MCP server "${connection.name}": ${made.size} tools; ${asking.length > 0 ? `asking: ${asking.join(', ')}` : 'none asks'}.`,
    );
  }
  for (const line of lines) log(line);
  return {
    tools,
    describe: () => [...lines],
    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
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
