import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { ModelMessage, ToolResultPart } from '../../../src/protocol';
import { uniqueMarker, waitFor, waitForPending } from '../../support/test-environment';
import { createMcpTestWorker, type McpTestWorker } from './mcp-test-worker';

// @modelcontextprotocol/server-everything (the MCP project's own test server) over Streamable HTTP.
const serverScript = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let port: number;
let server: ChildProcess | undefined;
let environment: McpTestWorker;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: found } = probe.address() as { port: number };
      probe.close(() => resolve(found));
    });
  });
}

/** Starts the everything server (on `port` unless told) and resolves once it listens. */
async function startEverythingServer(on = port): Promise<ChildProcess> {
  const child = spawn(process.execPath, [serverScript, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(on) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (on === port) server = child;
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the everything server exited (${code}): ${seen}`)));
  });
  return child;
}

async function stopEverythingServer(child = server): Promise<void> {
  if (child === server) server = undefined;
  if (!child || child.exitCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill();
  });
}

beforeAll(async () => {
  port = await freePort();
  await startEverythingServer();
  environment = await createMcpTestWorker({
    mcpServers: { every: { url: `http://127.0.0.1:${port}/mcp`, callTimeout: '1s', connectTimeout: '3s' } },
  });
});
afterAll(async () => {
  await environment?.close();
  await stopEverythingServer();
});

function toolResults(messages: ModelMessage[]): ToolResultPart[] {
  return messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.filter((part): part is ToolResultPart => part.type === 'tool-result')
      : [],
  );
}

/** Runs one scripted call of `name` to the end (approving it if asked) and gives its tool result. */
async function callOnce(name: string, input: Record<string, unknown>, approve = false): Promise<ToolResultPart> {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name, arguments: input }] },
    { text: 'Done.' },
  );
  const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
  if (approve) {
    const [pending] = await waitForPending(handle, 1);
    await environment.tollgate.decide(pending!.approvalId, { approved: true, approver: 'ana' });
  }
  const result = await handle.result();
  expect(result.status).toBe('completed');
  return toolResults(result.messages)[0]!;
}

describe('tools of the MCP everything server over Streamable HTTP', () => {
  it('gives structured content to the model as JSON', async () => {
    const result = await callOnce('every__get-structured-content', { location: 'Chicago' });
    expect(result.output).toMatchObject({
      type: 'json',
      value: { temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) },
    });
  });

  it('gives an image as an image-data content part, kept in the content store when large', async () => {
    const result = await callOnce('every__get-tiny-image', {});
    const ref = (result.providerOptions?.tollgate as { contentRef?: string } | undefined)?.contentRef;
    const output = ref === undefined ? result.output : await environment.tollgate.readContent(ref);
    expect(output).toMatchObject({
      type: 'content',
      value: expect.arrayContaining([
        { type: 'image-data', mediaType: 'image/png', data: expect.stringMatching(/^iVBOR/) },
      ]),
    });
  });

  it('gives resource links as lines the model can read', async () => {
    const result = await callOnce('every__get-resource-links', { count: 2 });
    expect(result.output).toMatchObject({
      type: 'text',
      value: expect.stringMatching(/Resource link: .+ <demo:\/\/resource\/.+>/),
    });
  });

  it("makes a tool's isError result an error the model reads, after the approval the tool asked for", async () => {
    // gzip-file-as-resource is not read-only, so it asks; its fetch of a closed port fails on the server.
    const result = await callOnce(
      'every__gzip-file-as-resource',
      { name: 'x.gz', data: 'http://127.0.0.1:1/nothing' },
      true,
    );
    expect(result.output).toEqual({ type: 'error-text', value: 'fetch failed' });
  });

  it('makes a call past the call timeout an error that says it may have taken effect, not a failed turn', async () => {
    const result = await callOnce('every__trigger-long-running-operation', { duration: 5, steps: 5 });
    expect(result.output).toMatchObject({
      type: 'error-text',
      value: expect.stringMatching(/did not answer the trigger-long-running-operation call within 1000 ms/),
    });
  });

  it('reports a server that went down as unavailable, and reconnects once it is back', async () => {
    await stopEverythingServer();
    const down = await callOnce('every__echo', { message: 'anyone there?' });
    expect(down.output).toMatchObject({
      type: 'error-text',
      value: expect.stringMatching(/^MCP server "every" could not be reached for the echo call/),
    });

    await startEverythingServer();
    const back = await callOnce('every__echo', { message: 'hello again' });
    expect(back.output).toEqual({ type: 'text', value: 'Echo: hello again' });
  });

  it('offers the tools of a server that was down when the worker started, once it answers', async () => {
    const latePort = await freePort();
    const late = await createMcpTestWorker({
      mcpServers: { late: { url: `http://127.0.0.1:${latePort}/mcp`, connectTimeout: '1s', retryInterval: '300ms' } },
    });
    let lateServer: ChildProcess | undefined;
    try {
      lateServer = await startEverythingServer(latePort);
      const marker = uniqueMarker();
      // Asked again until the worker offers the late server's tools (it tries the server every 300 ms).
      const result = await waitFor(
        async () => {
          late.model.scriptFor(marker, { text: 'Looking.' });
          await (await late.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} tools?` }] })).result();
          return late.model.requestsFor(marker).at(-1)?.toolNames ?? [];
        },
        (names) => names.includes('late__echo'),
      );
      expect(result).toEqual(expect.arrayContaining(['late__echo', 'late__get-sum']));
    } finally {
      await late.close();
      await stopEverythingServer(lateServer);
    }
  });
});
