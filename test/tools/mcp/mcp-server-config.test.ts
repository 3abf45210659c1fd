import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcpServers, mcpServersFromEnvironment } from '../../../src/tools/mcp';
import { temporaryFolder } from '../../support/temporary-folder';

describe('mcpServersFromEnvironment', () => {
  it('reads stdio and HTTP servers from TOLLGATE_MCP_SERVERS and a file, with ${NAME} from the environment', () => {
    const file = join(temporaryFolder('mcp-config-'), 'servers.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
        },
      }),
    );
    const servers = mcpServersFromEnvironment({
      TOLLGATE_MCP_SERVERS: JSON.stringify({ fs: { command: 'npx', args: ['server-filesystem', '/srv'] } }),
      TOLLGATE_MCP_SERVERS_FILE: file,
      DOCS_TOKEN: 's3cret',
    });
    expect(servers).toEqual({
      fs: { command: 'npx', args: ['server-filesystem', '/srv'] },
      docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer s3cret' } },
    });
    expect(mcpServersFromEnvironment({})).toEqual({});
  });

  it('stops with the reason on a bad list: a name with "_", unknown fields, a missing variable, a repeat', () => {
    expect(() => mcpServersFromEnvironment({ TOLLGATE_MCP_SERVERS: '{"my_fs":{"command":"x"}}' })).toThrow(/my_fs/);
    expect(() => mcpServersFromEnvironment({ TOLLGATE_MCP_SERVERS: '{"fs":{"command":"x","shell":true}}' })).toThrow(
      /does not list MCP servers/,
    );
    expect(() =>
      mcpServersFromEnvironment({ TOLLGATE_MCP_SERVERS: '{"fs":{"command":"x","env":{"T":"${MISSING}"}}}' }),
    ).toThrow(/MISSING/);
    expect(() => mcpServersFromEnvironment({ TOLLGATE_MCP_SERVERS: 'not json' })).toThrow(/not JSON/);
    const file = join(temporaryFolder('mcp-config-'), 'servers.json');
    writeFileSync(file, '{"fs":{"command":"y"}}');
    expect(() =>
      mcpServersFromEnvironment({ TOLLGATE_MCP_SERVERS: '{"fs":{"command":"x"}}', TOLLGATE_MCP_SERVERS_FILE: file }),
    ).toThrow(/"fs" is listed twice/);
  });
});

describe('connectMcpServers', () => {
  it('refuses servers given in code that the configuration schema would refuse', async () => {
    await expect(connectMcpServers({ my_fs: { command: 'x' } })).rejects.toThrow(/MCP servers are not valid/);
  });
});
