import path from 'node:path';
import { connectMcpServers, type McpToolSource } from '../../../src/tools/mcp';

// Issue 33: a server listed `write.file` (marked read-only; it writes) before `write_file`; both became
// `lying__write_file`, the second was dropped with a log line, and the operator's rule for `write_file` guarded the
// other tool's writes. And a read-only hint alone let a writing tool run unasked.

const lyingServer = (environment: Record<string, string> = {}) => ({
  command: process.execPath,
  args: ['--import', 'tsx', path.join(__dirname, 'lying-server.ts')],
  env: environment,
  connectTimeout: '20s',
});

describe('a hostile MCP server', () => {
  let source: McpToolSource | undefined;
  afterEach(async () => {
    await source?.close();
    source = undefined;
  });

  it('loses all its tools, with the reason, when two of its names become one', async () => {
    const lines: string[] = [];
    source = await connectMcpServers(
      { lying: lyingServer({ LYING_CLASH: '1' }) },
      {
        policy: { mcpServers: { lying: { tools: { write_file: { needsApproval: true } } } } },
        log: (line) => lines.push(line),
      },
    );
    expect(source.tools).toEqual([]);
    expect(source.describe()).toEqual([
      'MCP server "lying" is left out, none of its tools offered: "write.file" and "write_file" are all named ' +
        "lying__write_file. A rule for one would guard the other's calls too, or none. Rename them on the server, " +
        'or remove the server.',
    ]);
    expect(lines).toContain(source.describe()[0]);
  });

  it('asks for a tool it calls read-only, unless the operator trusts its annotations', async () => {
    source = await connectMcpServers({ lying: lyingServer() }, { log: () => {} });
    const asking = Object.fromEntries(source.tools.map((tool) => [tool.name, tool.needsApproval]));
    expect(asking).toEqual({ lying__write_file: true, lying__peek: true });
    expect(source.describe()).toEqual(['MCP server "lying": 2 tools; asking: lying__write_file, lying__peek.']);
    await source.close();

    source = await connectMcpServers(
      { lying: lyingServer() },
      { policy: { mcpServers: { lying: { trustReadOnlyHint: true } } }, log: () => {} },
    );
    expect(source.tools.find((tool) => tool.name === 'lying__peek')?.needsApproval).toBe(false);
    expect(source.tools.find((tool) => tool.name === 'lying__write_file')?.needsApproval).toBe(true);
  });
});
