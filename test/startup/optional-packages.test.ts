import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { compiledSource } from '../support/compiled-sources';

// The MCP SDK, Slack's Web API, nodemailer, the AI SDK and the gateway's HTTP server (fastify) are loaded where they
// are used, not when a worker starts: 0.3-0.5 s of CPU that a worker on zod tools, without MCP servers, Slack or SMTP,
// paid at every start for nothing (measured loading `npm run worker`'s modules and the package's entry).

/** The packages, by how a `require` of them begins. */
const optional = {
  mcp: '@modelcontextprotocol/sdk',
  slack: '@slack/web-api',
  nodemailer: 'nodemailer',
  ai: 'ai',
  fastify: 'fastify',
} as const;
type Optional = keyof typeof optional;

/**
 * Runs `body` in a fresh node process that records every `require`: which of the packages it required, and what it
 * printed.
 */
async function inFreshProcess(body: string): Promise<{ required: Record<Optional, boolean>; printed: string }> {
  const script = `
    const Module = require('node:module');
    const requested = new Set();
    const load = Module._load;
    Module._load = function (request, ...rest) { requested.add(request); return load.call(this, request, ...rest); };
    const optional = ${JSON.stringify(optional)};
    (async () => { ${body} })().then(() => {
      const required = Object.fromEntries(Object.entries(optional).map(([name, start]) =>
        [name, [...requested].some((request) => request === start || request.startsWith(start + '/'))]));
      process.stdout.write('\\n' + JSON.stringify(required) + '\\n');
      process.exit(0);
    });
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], {
    env: { ...process.env, SLACK_BOT_TOKEN: '', SMTP_URL: '', SMTP_HOST: '' },
  });
  const lines = stdout.trimEnd().split('\n');
  return { required: JSON.parse(lines.at(-1)!) as Record<Optional, boolean>, printed: lines.slice(0, -1).join('\n') };
}

const source = (file: string) => JSON.stringify(compiledSource(file));

describe('what a worker loads at start-up', () => {
  it('leaves out the MCP SDK, Slack, nodemailer, the AI SDK and fastify when its tools are zod and nothing else is set', async () => {
    // The package's entry, as an application's `import { createTollgateWorker } from 'tollgate'` loads it.
    const { required } = await inFreshProcess(`
      require(${source('src/index.ts')});
      require(${source('src/notifications/notifiers-from-environment.ts')}).notifiersFromEnvironment({});
      const { z } = require('zod');
      const tools = await require(${source('src/tools/index.ts')}).toolsFromAiSdk({
        refund: { description: 'Refund an order', inputSchema: z.object({ orderId: z.string() }), execute: async () => 'done' },
      });
      if (tools.length !== 1) throw new Error('the zod tool was not made');
    `);
    expect(required).toEqual({ mcp: false, slack: false, nodemailer: false, ai: false, fastify: false });
  });

  it('loads each where it is used: a Slack notifier, an SMTP transport, an MCP server', async () => {
    const { required, printed } = await inFreshProcess(`
      require(${source('src/notifications/slack/index.ts')}).slackNotifierFromEnvironment({ SLACK_BOT_TOKEN: 'xoxb-test' });
      require(${source('src/notifications/email/index.ts')}).smtpTransportFromEnvironment({ SMTP_URL: 'smtp://127.0.0.1:1' });
      // A server whose process exits at once: its tools are left out, and the SDK was loaded to try.
      const mcp = await require(${source('src/tools/mcp/index.ts')}).connectMcpServers(
        { gone: { command: process.execPath, args: ['-e', ''], connectTimeout: '10s' } },
        { log: () => undefined },
      );
      console.log(mcp.describe().join('\\n'));
      await mcp.close();
    `);
    expect(required).toMatchObject({ mcp: true, slack: true, nodemailer: true });
    expect(printed).toContain('MCP server "gone"');
  });
});
