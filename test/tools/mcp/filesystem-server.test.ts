import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelMessage, ToolResultPart } from '../../../src/protocol';
import {
  createTestEnvironment,
  type TestEnvironment,
  uniqueMarker,
  waitForPending,
} from '../../support/test-environment';

// @modelcontextprotocol/server-filesystem, run over stdio as an operator would list it.
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tollgate-mcp-fs-')));
const filesystemServer = {
  command: process.execPath,
  args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), root],
};

let environment: TestEnvironment;

beforeAll(async () => {
  writeFileSync(join(root, 'notes.txt'), 'MCP notes\n');
  environment = await createTestEnvironment({
    tools: [],
    // The MCP project's own server: its operator vouches for its readOnlyHint, so reads run unasked.
    policy: { mcpServers: { fs: { trustReadOnlyHint: true } } },
    mcpServers: {
      fs: filesystemServer,
      // A server that never answers: the worker starts after its connect timeout, without its tools.
      broken: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], connectTimeout: '2s' },
    },
  });
});
afterAll(async () => {
  await environment?.close();
  rmSync(root, { recursive: true, force: true });
});

function toolResults(messages: ModelMessage[]): ToolResultPart[] {
  return messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.filter((part): part is ToolResultPart => part.type === 'tool-result')
      : [],
  );
}

describe('tools of the MCP filesystem server', () => {
  it('offers the server tools to the model by namespaced name with their schema, and runs a read without asking', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'fs__read_text_file', arguments: { path: join(root, 'notes.txt') } }] },
      { text: 'It says MCP notes.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} read` }] });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(result.audit).toEqual([]);
    const [first, second] = environment.model.requestsFor(marker);
    expect(first?.toolNames).toEqual(expect.arrayContaining(['fs__read_text_file', 'fs__write_file']));
    expect(first?.toolNames.some((name) => name.startsWith('broken__'))).toBe(false);
    const write = first?.tools.find((tool) => tool.function?.name === 'fs__write_file');
    expect(write?.function?.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    });
    expect(second?.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: `${marker}-1` });
    expect(JSON.stringify(second?.messages.at(-1))).toContain('MCP notes');
  });

  it('holds a write for approval, and writes the file only once it is approved', async () => {
    const marker = uniqueMarker();
    const path = join(root, 'approved.txt');
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'fs__write_file', arguments: { path, content: 'approved\n' } }] },
      { text: 'Written.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} write` }] });
    const [pending] = await waitForPending(handle, 1);
    expect(pending).toMatchObject({ toolName: 'fs__write_file', input: { path, content: 'approved\n' } });
    expect(existsSync(path)).toBe(false);

    await environment.tollgate.decide(pending!.approvalId, { approved: true, approver: 'ana' });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(readFileSync(path, 'utf8')).toBe('approved\n');
    expect(toolResults(result.messages)[0]?.output.type).not.toMatch(/error|denied/);
  });

  it('leaves the file untouched when the write is denied, and tells the model it did not run', async () => {
    const marker = uniqueMarker();
    const path = join(root, 'keep.txt');
    writeFileSync(path, 'original\n');
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'fs__write_file', arguments: { path, content: 'overwritten\n' } }] },
      { text: 'Not written.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} write` }] });
    const [pending] = await waitForPending(handle, 1);
    await environment.tollgate.decide(pending!.approvalId, { approved: false, approver: 'ana', reason: 'no' });
    const result = await handle.result();

    expect(readFileSync(path, 'utf8')).toBe('original\n');
    expect(toolResults(result.messages)[0]?.output).toMatchObject({ type: 'execution-denied', reason: 'no' });
  });

  it('turns arguments that break the server schema into an error the model reads, without asking anyone', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'fs__write_file', arguments: { path: join(root, 'x.txt') } }] },
      { text: 'I forgot the content.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} write` }] });
    const result = await handle.result();

    expect(result.audit).toEqual([]);
    expect(existsSync(join(root, 'x.txt'))).toBe(false);
    const output = toolResults(result.messages)[0]?.output;
    expect(output).toMatchObject({
      type: 'error-text',
      value: expect.stringMatching(/^Invalid input for tool "fs__write_file":[\s\S]*at content/),
    });
  });

  it("gives the model the server's own refusal (a path outside its root) as a tool error, not a failed turn", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'fs__read_text_file', arguments: { path: '/etc/hostname' } }] },
      { text: 'Not allowed.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} read` }] });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(toolResults(result.messages)[0]?.output).toMatchObject({
      type: 'error-text',
      value: expect.stringMatching(/Access denied/),
    });
  });

  it("runs a write approved after the worker restarted while it waited, through the new worker's connection", async () => {
    const marker = uniqueMarker();
    const path = join(root, 'after-restart.txt');
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'fs__write_file', arguments: { path, content: 'survived\n' } }] },
      { text: 'Written after the restart.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} write` }] });
    const [pending] = await waitForPending(handle, 1);
    await environment.stopWorker();
    await environment.startWorker();

    await environment.tollgate.decide(pending!.approvalId, { approved: true, approver: 'ana' });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(readFileSync(path, 'utf8')).toBe('survived\n');
  });

  it('starts the stdio server again for the next call when its process died', async () => {
    // The server's process is the only one whose command line names this test's folder.
    const pids = execFileSync('pgrep', ['-f', `server-filesystem/dist/index.js ${root}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map(Number);
    expect(pids).toHaveLength(1);
    process.kill(pids[0]!, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 500));

    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'fs__read_text_file', arguments: { path: join(root, 'notes.txt') } }] },
      { text: 'Read again.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} read` }] });
    const result = await handle.result();

    expect(toolResults(result.messages)[0]?.output).toEqual({ type: 'json', value: { content: 'MCP notes\n' } });
  });
});
