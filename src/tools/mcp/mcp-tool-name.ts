import { createHash } from 'node:crypto';

/** What an MCP server may be called in the worker's configuration: no `_`, so `server__tool` splits one way. */
export const mcpServerNamePattern = /^[a-zA-Z0-9-]{1,32}$/;

const maximumToolNameLength = 64;

/**
 * The name the model calls MCP tool `tool` of server `server` by: `server__tool`, within the model APIs' rule
 * (`^[a-zA-Z0-9_-]{1,64}$`). Other characters become `_`; a name too long is cut and ends with a digest of the
 * original, so two long names stay apart.
 *
 * @example
 * mcpToolName('fs', 'write_file'); // 'fs__write_file'
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (name.length <= maximumToolNameLength) return name;
  const digest = createHash('sha256').update(`${server}\n${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, maximumToolNameLength - digest.length - 1)}-${digest}`;
}
