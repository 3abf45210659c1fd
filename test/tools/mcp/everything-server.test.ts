import type { ChildProcess } from 'node:child_process';
import type { ModelMessage, ToolResultPart } from '../../../src/protocol';
import {
  createTestEnvironment,
  type TestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
} from '../../support/test-environment';
import { freePort, startEverythingServer, stopEverythingServer } from './everything-server-process';

let port: number;
let server: ChildProcess | undefined;
let environment: TestEnvironment;

beforeAll(async () => {
  port = await freePort();
  server = await startEverythingServer(port);
  environment = await createTestEnvironment({
    tools: [],
    // The MCP project's own server: its read-only hints are trusted, so its reads run unasked (docs/mcp-tools.md).
    policy: { mcpServers: { every: { trustReadOnlyHint: true } } },
    mcpServers: { every: { url: `http://127.0.0.1:${port}/mcp`, callTimeout: '1s', connectTimeout: '3s' } },
  });
});
afterAll(async () => {
  await environment?.close();
  await stopEverythingServer(server);
});

function toolResults(messages: ModelMessage[]): ToolResultPart[] {
  return messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.filter((part): part is ToolResultPart => part.type === 'tool-result')
      : [],
  );
}

/** The marker of the last {@link callOnce}, to read what the model was told. */
let lastMarker = '';

/** Runs one scripted call of `name` to the end (approving it if asked) and gives its tool result. */
async function callOnce(name: string, input: Record<string, unknown>, approve = false): Promise<ToolResultPart> {
  const marker = (lastMarker = uniqueMarker());
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
    // The model sees the image itself, after the tool's result, not a placeholder.
    const [, answer] = environment.model.requestsFor(lastMarker);
    expect(JSON.stringify(answer?.messages.at(-1))).toMatch(/"image_url".*data:image\/png;base64,iVBOR/);
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
    await stopEverythingServer(server);
    const down = await callOnce('every__echo', { message: 'anyone there?' });
    expect(down.output).toMatchObject({
      type: 'error-text',
      value: expect.stringMatching(/^MCP server "every" could not be reached for the echo call/),
    });

    server = await startEverythingServer(port);
    const back = await callOnce('every__echo', { message: 'hello again' });
    expect(back.output).toEqual({ type: 'text', value: 'Echo: hello again' });
  });

  it('offers the tools of a server that was down when the worker started, once it answers', async () => {
    const latePort = await freePort();
    const late = await createTestEnvironment({
      tools: [],
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
