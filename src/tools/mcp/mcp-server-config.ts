import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { durationSchema } from '../../protocol';
import { mcpServerNamePattern } from './mcp-tool-name';

const timeouts = {
  /** How long connecting and listing tools may take, at start-up and on a reconnect (default 10s). */
  connectTimeout: durationSchema.optional(),
  /** How long one tool call may take (default 60s); a call cut off is an error the model reads, not repeated. */
  callTimeout: durationSchema.optional(),
  /** How often a server that did not answer at start-up is tried again until it does (default 30s). */
  retryInterval: durationSchema.optional(),
};

/** An MCP server the worker starts as a child process and talks to over stdio. */
export const mcpStdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  /** The program to run. */
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /**
   * Environment variables for the server, beside the few the MCP SDK passes by default (`HOME`, `PATH`, ...): the
   * worker's own environment, with its secrets, is not passed on. `${NAME}` is replaced by the worker's `NAME`.
   */
  env: z.record(z.string(), z.string()).optional(),
  /** Working directory of the server process. */
  cwd: z.string().optional(),
  ...timeouts,
});

/** An MCP server reached over Streamable HTTP. */
export const mcpHttpServerSchema = z.strictObject({
  type: z.literal('http').optional(),
  /** The server's MCP endpoint, e.g. `https://mcp.example.com/mcp`. */
  url: z.url({ protocol: /^https?$/ }),
  /** Headers sent with every request, e.g. `Authorization`; `${NAME}` is replaced by the worker's `NAME`. */
  headers: z.record(z.string(), z.string()).optional(),
  ...timeouts,
});

/** One MCP server as the operator lists it. */
export const mcpServerConfigSchema = z.union([mcpStdioServerSchema, mcpHttpServerSchema]);
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

/** MCP servers by name; the name prefixes their tools' names (`fs` → `fs__write_file`). */
export const mcpServerConfigsSchema = z.record(
  z.string().regex(mcpServerNamePattern, 'a server name of 1 to 32 letters, digits or "-"'),
  mcpServerConfigSchema,
);
export type McpServerConfigs = z.infer<typeof mcpServerConfigsSchema>;

/**
 * The MCP servers the worker's environment lists: `TOLLGATE_MCP_SERVERS` (JSON) and the JSON file at
 * `TOLLGATE_MCP_SERVERS_FILE`, each either `{ "name": { ... } }` or `{ "mcpServers": { "name": { ... } } }` (the
 * shape MCP clients such as Claude Desktop use). A server named in both is an error, as is anything that does not
 * parse: the worker stops with the reason rather than start without tools the operator expects.
 */
export function mcpServersFromEnvironment(environment: NodeJS.ProcessEnv = process.env): McpServerConfigs {
  const sources: Array<[string, string]> = [];
  if (environment.TOLLGATE_MCP_SERVERS) sources.push(['TOLLGATE_MCP_SERVERS', environment.TOLLGATE_MCP_SERVERS]);
  const file = environment.TOLLGATE_MCP_SERVERS_FILE;
  if (file) {
    try {
      sources.push([`TOLLGATE_MCP_SERVERS_FILE "${file}"`, readFileSync(file, 'utf8')]);
    } catch (error) {
      throw new Error(`TOLLGATE_MCP_SERVERS_FILE "${file}" could not be read: ${(error as Error).message}`);
    }
  }
  const servers: McpServerConfigs = {};
  for (const [origin, text] of sources) {
    for (const [name, config] of Object.entries(parseMcpServers(origin, text, environment))) {
      if (name in servers) throw new Error(`MCP server "${name}" is listed twice (${origin} names it again).`);
      servers[name] = config;
    }
  }
  return servers;
}

function parseMcpServers(origin: string, text: string, environment: NodeJS.ProcessEnv): McpServerConfigs {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${origin} is not JSON: ${(error as Error).message}`);
  }
  const listed =
    typeof raw === 'object' && raw !== null && 'mcpServers' in raw ? (raw as { mcpServers: unknown }).mcpServers : raw;
  const parsed = mcpServerConfigsSchema.safeParse(listed);
  if (!parsed.success) throw new Error(`${origin} does not list MCP servers:\n${z.prettifyError(parsed.error)}`);
  return Object.fromEntries(
    Object.entries(parsed.data).map(([name, config]) => [name, expandVariables(config, environment, origin)]),
  );
}

/** `${NAME}` in env values and headers, from the worker's environment: secrets stay out of configuration files. */
function expandVariables(config: McpServerConfig, environment: NodeJS.ProcessEnv, origin: string): McpServerConfig {
  const expand = (values: Record<string, string> | undefined) =>
    values &&
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => [
        key,
        value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
          const found = environment[name];
          if (found === undefined) throw new Error(`${origin}: "${key}" names \${${name}}, which is not set.`);
          return found;
        }),
      ]),
    );
  if ('command' in config) return { ...config, ...(config.env && { env: expand(config.env) }) };
  return { ...config, ...(config.headers && { headers: expand(config.headers) }) };
}
