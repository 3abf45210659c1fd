import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createTestEnvironment,
  uniqueMarker,
  waitForPending,
  temporalAddress,
  workflowBundlePath,
} from '../../support/test-environment';
import { killProcess } from '../../support/spawn-worker-process';

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tollgate-mcp-crash-')));
const servers = {
  fs: {
    command: process.execPath,
    args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), root],
  },
};

/** Starts `mcp-worker-process.ts` with the MCP servers in TOLLGATE_MCP_SERVERS; resolves once it polls. */
async function spawnMcpWorker(taskQueue: string, modelURL: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'mcp-worker-process.ts')], {
    env: {
      ...process.env,
      TOLLGATE_TEST_TEMPORAL_ADDRESS: temporalAddress(),
      TOLLGATE_TEST_WORKFLOW_BUNDLE: workflowBundlePath(),
      TOLLGATE_TEST_TASK_QUEUE: taskQueue,
      TOLLGATE_TEST_MODEL_URL: modelURL,
      TOLLGATE_MCP_SERVERS: JSON.stringify(servers),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process did not start in time:\n${errors}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited with ${code}:\n${errors}`));
    });
  });
  return child;
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
