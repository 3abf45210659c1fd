export { connectMcpServers, type McpToolSource } from './connect-mcp-servers';
export { jsonSchemaInput, type JsonSchemaInput } from './json-schema-input';
export { mcpResultOutput, type McpCallToolResult, type McpContentBlock } from './mcp-result-output';
export {
  mcpHttpServerSchema,
  mcpServerConfigSchema,
  mcpServerConfigsSchema,
  mcpServersFromEnvironment,
  mcpStdioServerSchema,
  type McpServerConfig,
  type McpServerConfigs,
} from './mcp-server-config';
export { McpServerConnection, McpServerUnavailable } from './mcp-server-connection';
export { mcpServerNamePattern, mcpToolName } from './mcp-tool-name';
