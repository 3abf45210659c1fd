import type { ChildProcess } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { createTestEnvironment, uniqueMarker, waitFor, waitForPending } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { killProcess, spawnWorkerProcess } from '../../support/spawn-worker-process';
import { toolApprovalResponseSignal } from '../../../src/workflows/definitions';
import { temporaryFolder } from '../../support/temporary-folder';

describe('agentTurn across worker restarts', () => {
  it('keeps a pending approval through a graceful worker shutdown and runs the tool once afterwards', async () => {
    const { tools, runs } = createTestTools();
    const environment = await createTestEnvironment({ tools });
    try {
      const marker = uniqueMarker();
      environment.model.scriptFor(
        marker,
        { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'x' } }] },
        { text: 'done after restart' },
      );
      const handle = await environment.tollgate.startTurn({
        messages: [{ role: 'user', content: `${marker} delete x` }],
      });
      const [approval] = await waitForPending(handle, 1);
      await environment.stopWorker();

      // With no worker at all, the signal is still accepted durably by the server.
      await handle.signal(toolApprovalResponseSignal, {
        approvalId: approval!.approvalId,
        approved: true,
        approver: 'ana',
      });
      await environment.startWorker();
      const result = await handle.result();

      expect(result.text).toBe('done after restart');
      expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    } finally {
      await environment.close();
    }
  });

  it('survives a worker killed with SIGKILL while it waits, and runs the tool exactly once', async () => {
    const environment = await createTestEnvironment({ tools: createTestTools().tools, startWorker: false });
    const runLog = path.join(temporaryFolder('tollgate-runs-'), 'runs.jsonl');
    const workerOptions = { taskQueue: environment.taskQueue, modelURL: environment.model.baseURL, runLog };
    let worker: ChildProcess | undefined;
    try {
      const marker = uniqueMarker();
      environment.model.scriptFor(
        marker,
        { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'y' } }] },
        { text: 'done after crash' },
      );
      worker = await spawnWorkerProcess(workerOptions);
      const handle = await environment.tollgate.startTurn({
        messages: [{ role: 'user', content: `${marker} delete y` }],
      });
      const [approval] = await waitForPending(handle, 1);
      await killProcess(worker, 'SIGKILL');
      expect(existsSync(runLog)).toBe(false);

      worker = await spawnWorkerProcess(workerOptions);
      // The update waits for the new worker to pick it up, then returns the recorded decision.
      const recorded = await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'ana' });
      expect(recorded.decision).toBe('approved');
      const result = await handle.result();

      expect(result.text).toBe('done after crash');
      const lines = readFileSync(runLog, 'utf8').trim().split('\n');
      expect(lines.map((line) => JSON.parse(line).toolCallId)).toEqual([`${marker}-1`]);
    } finally {
      if (worker) await killProcess(worker, 'SIGTERM');
      await environment.close();
    }
  }, 90_000);
});

describe('agentTurn when a worker dies while a tool runs', () => {
  it('does not run a tool that is not safe to repeat a second time, and tells the model why', async () => {
    const environment = await createTestEnvironment({ tools: createTestTools().tools, startWorker: false });
    const runLog = path.join(temporaryFolder('tollgate-runs-'), 'runs.jsonl');
    const workerOptions = { taskQueue: environment.taskQueue, modelURL: environment.model.baseURL, runLog };
    let worker: ChildProcess | undefined;
    try {
      const marker = uniqueMarker();
      environment.model.scriptFor(
        marker,
        { toolCalls: [{ id: `${marker}-1`, name: 'slowJob', arguments: { job: 'migrate', seconds: 30 } }] },
        { text: 'the migration was interrupted' },
      );
      worker = await spawnWorkerProcess(workerOptions);
      const handle = await environment.tollgate.startTurn({
        messages: [{ role: 'user', content: `${marker} migrate` }],
        toolTimeouts: { heartbeat: '2s' },
      });
      await waitFor(
        async () => (existsSync(runLog) ? readFileSync(runLog, 'utf8') : ''),
        (log) => log.includes(`${marker}-1`),
      );
      await killProcess(worker, 'SIGKILL');
      worker = await spawnWorkerProcess(workerOptions);
      const result = await handle.result();

      expect(readFileSync(runLog, 'utf8').trim().split('\n')).toHaveLength(1);
      const toolMessage = result.messages.find((message) => message.role === 'tool');
      expect(toolMessage?.content).toEqual([
        expect.objectContaining({
          type: 'tool-result',
          toolCallId: `${marker}-1`,
          output: { type: 'error-text', value: expect.stringContaining('was not run again') },
        }),
      ]);
    } finally {
      if (worker) await killProcess(worker, 'SIGTERM');
      await environment.close();
    }
  }, 60_000);
});
