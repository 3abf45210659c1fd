import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTestEnvironment, uniqueMarker, waitFor, waitForPending } from '../../support/test-environment';
import { killProcess, spawnWorkerProcess } from '../../support/spawn-worker-process';
import { freePort, startEverythingServer, stopEverythingServer } from './everything-server-process';
import { temporaryFolder } from '../../support/temporary-folder';

const root = realpathSync(temporaryFolder('tollgate-mcp-crash-'));
const servers = {
  fs: {
    command: process.execPath,
    args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), root],
  },
};

/** A worker process (test/support/worker-process.ts) whose MCP servers are `servers`, under `policyFile` if given. */
function spawnMcpWorker(
  taskQueue: string,
  modelURL: string,
  more: { servers?: object; policyFile?: string } = {},
): Promise<ChildProcess> {
  return spawnWorkerProcess({
    taskQueue,
    modelURL,
    runLog: path.join(root, 'runs.jsonl'),
    environment: {
      TOLLGATE_MCP_SERVERS: JSON.stringify(more.servers ?? servers),
      TOLLGATE_POLICY_FILE: more.policyFile ?? '',
    },
  });
}

describe('an MCP tool call waiting for approval when its worker crashes', () => {
  it('survives SIGKILL of the worker (and its stdio server), and writes once a new worker has it approved', async () => {
    const environment = await createTestEnvironment({ tools: [], startWorker: false });
    let worker: ChildProcess | undefined;
    try {
      const marker = uniqueMarker();
      const file = path.join(root, 'crash.txt');
      environment.model.scriptFor(
        marker,
        {
          toolCalls: [
            { id: `${marker}-1`, name: 'fs__write_file', arguments: { path: file, content: 'after crash\n' } },
          ],
        },
        { text: 'written after the crash' },
      );
      worker = await spawnMcpWorker(environment.taskQueue, environment.model.baseURL);
      const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} write` }] });
      const [approval] = await waitForPending(handle, 1);
      expect(approval?.toolName).toBe('fs__write_file');
      await killProcess(worker, 'SIGKILL');

      worker = await spawnMcpWorker(environment.taskQueue, environment.model.baseURL);
      expect(existsSync(file)).toBe(false);
      await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'ana' });
      const result = await handle.result();

      expect(result.text).toBe('written after the crash');
      expect(readFileSync(file, 'utf8')).toBe('after crash\n');
    } finally {
      if (worker) await killProcess(worker, 'SIGTERM');
      await environment.close();
    }
  }, 90_000);
});

describe('an MCP tool call that may have side effects, when its worker dies during the call', () => {
  it('is not sent to the server again by the next attempt, and the model reads that it may have taken effect', async () => {
    const environment = await createTestEnvironment({ tools: [], startWorker: false });
    const port = await freePort();
    const server = await startEverythingServer(port);
    // The operator says this tool is not safe to repeat (its annotations call it read-only, so it does not ask).
    const policyFile = path.join(root, 'policy.json');
    writeFileSync(
      policyFile,
      JSON.stringify({
        mcpServers: {
          every: { trustReadOnlyHint: true, tools: { 'trigger-long-running-operation': { idempotent: false } } },
        },
      }),
    );
    const more = { servers: { every: { url: `http://127.0.0.1:${port}/mcp`, callTimeout: '30s' } }, policyFile };
    let worker: ChildProcess | undefined;
    try {
      const marker = uniqueMarker();
      environment.model.scriptFor(
        marker,
        {
          toolCalls: [
            {
              id: `${marker}-1`,
              name: 'every__trigger-long-running-operation',
              arguments: { duration: 10, steps: 10 },
            },
          ],
        },
        { text: 'It may have run.' },
      );
      worker = await spawnMcpWorker(environment.taskQueue, environment.model.baseURL, more);
      const handle = await environment.tollgate.startTurn({
        messages: [{ role: 'user', content: `${marker} long` }],
        toolTimeouts: { heartbeat: '2s' },
      });
      await waitFor(
        async () => environment.model.requestsFor(marker).length,
        (count) => count === 1,
      );
      // The call is under way on the server.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await killProcess(worker, 'SIGKILL');

      worker = await spawnMcpWorker(environment.taskQueue, environment.model.baseURL, more);
      const result = await handle.result();

      const output = result.messages.flatMap((message) =>
        message.role === 'tool'
          ? message.content.flatMap((part) => (part.type === 'tool-result' ? [part.output] : []))
          : [],
      )[0];
      expect(output).toMatchObject({
        type: 'error-text',
        value: expect.stringMatching(
          /interrupted before it finished[\s\S]*not run again[\s\S]*may or may not have taken effect/,
        ),
      });
      expect(result.text).toBe('It may have run.');
    } finally {
      if (worker) await killProcess(worker, 'SIGTERM');
      await stopEverythingServer(server);
      await environment.close();
    }
  }, 90_000);
});
