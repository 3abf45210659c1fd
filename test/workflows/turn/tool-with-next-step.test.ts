import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TurnReader } from '../../../src/gateway/chat/read-turn';
import { TurnRenderer } from '../../../src/gateway/chat/turn-renderer';
import { agentTurnEventsQuery, supersedeTurnSignal } from '../../../src/workflows/definitions';
import { killProcess, spawnWorkerProcess } from '../../support/spawn-worker-process';
import {
  createTestEnvironment,
  scheduledActivities,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { temporaryFolder } from '../../support/temporary-folder';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => environment?.close());

const runsOf = (marker: string) => runs.filter((run) => run.toolCallId.startsWith(marker));
const slowly =
  <T>(ms: number, answer: T) =>
  async () => {
    await new Promise((resolve) => setTimeout(resolve, ms).unref());
    return answer;
  };

describe('agentTurn: the last tool of a step runs with the next model step', () => {
  it('runs a call decided while another still waits on its own, and the last one with the model step after it', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-a`, name: 'deleteFile', arguments: { path: 'a.txt' } },
          { id: `${marker}-b`, name: 'deleteFile', arguments: { path: 'b.txt' } },
        ],
      },
      { text: 'deleted both' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [first, second] = await waitForPending(handle, 2);
    await environment.tollgate.decide(first!.approvalId, { approved: true });
    await waitFor(
      async () => runsOf(marker).length,
      (count) => count === 1,
    );
    await environment.tollgate.decide(second!.approvalId, { approved: true });
    const result = await handle.result();

    expect(result.text).toBe('deleted both');
    expect(runsOf(marker).map((run) => run.input)).toEqual([{ path: 'a.txt' }, { path: 'b.txt' }]);
    expect(scheduledActivities((await handle.fetchHistory()).events ?? [])).toEqual([
      'runModelStep',
      'runTool',
      'runToolThenModelStep',
    ]);
    // The tool message is the same as when every tool ran on its own: both decisions, then both results in order.
    const toolMessage = result.messages.find((message) => message.role === 'tool');
    expect((toolMessage?.content as Array<{ type: string; toolCallId?: string }>).map((part) => part.type)).toEqual([
      'tool-approval-response',
      'tool-approval-response',
      'tool-result',
      'tool-result',
    ]);
    const secondRequest = JSON.stringify(environment.model.requestsFor(marker)[1]?.messages);
    expect(secondRequest).toContain('a.txt');
    expect(secondRequest).toContain('{\\"deleted\\":\\"b.txt\\"}');
  });

  it('runs the tool alone when the turn has no step left for the model', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(marker, {
      toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query: 'gate' } }],
    });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} look` }],
      maxSteps: 1,
    });
    const result = await handle.result();
    expect(result.status).toBe('max-steps-reached');
    expect(runsOf(marker)).toHaveLength(1);
    expect(scheduledActivities((await handle.fetchHistory()).events ?? [])).toEqual(['runModelStep', 'runTool']);
    expect(environment.model.requestsFor(marker)).toHaveLength(1);
  });

  it('keeps the tool result when the model fails after it, and calls the model again without running the tool', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'c.txt' } }] },
      { error: { status: 503, message: 'overloaded' } },
      { text: 'deleted c.txt after all' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    await environment.tollgate.decide(approval!.approvalId, { approved: true });
    const result = await handle.result();

    expect(result.text).toBe('deleted c.txt after all');
    expect(runsOf(marker)).toHaveLength(1);
    expect(scheduledActivities((await handle.fetchHistory()).events ?? [])).toEqual([
      'runModelStep',
      'runToolThenModelStep',
      'runModelStep',
    ]);
    const retried = (await handle.query(agentTurnEventsQuery)).find((event) => event.type === 'model-step-retried');
    expect(retried).toMatchObject({ step: 2 });
    expect(retried?.detail).toContain('overloaded');
    expect(JSON.stringify(environment.model.requestsFor(marker)[2]?.messages)).toContain('c.txt');
  });

  it('ends superseded with the tool result, and not the answer, when superseded while the model answers', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'd.txt' } }] },
      slowly(2_000, { text: 'an answer nobody waits for' }),
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    await environment.tollgate.decide(approval!.approvalId, { approved: true });
    await waitFor(
      async () => environment.model.requestsFor(marker).length,
      (count) => count === 2,
    );
    await handle.signal(supersedeTurnSignal, { reason: 'a newer message' });
    const result = await handle.result();

    expect(result.status).toBe('superseded');
    expect(runsOf(marker)).toHaveLength(1);
    expect(result.text).toBe('');
    const last = result.messages.at(-1);
    expect(last?.role).toBe('tool');
    expect(JSON.stringify(last?.content)).toContain('d.txt');
  });

  it('keeps a model slow to start alive under a short tool heartbeat timeout', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query: 'slow' } }] },
      slowly(3_000, { text: 'took my time' }),
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} look` }],
      toolTimeouts: { heartbeat: '1s' },
    });
    const result = await handle.result();
    expect(result.text).toBe('took my time');
    // One attempt: no heartbeat timeout while the model took three times as long as the heartbeat timeout.
    expect(environment.model.requestsFor(marker)).toHaveLength(2);
    expect(runsOf(marker)).toHaveLength(1);
  });

  it('shows the tool result in a chat while the model is still answering', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'e.txt' } }] },
      slowly(3_000, { text: 'deleted e.txt' }),
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    await environment.tollgate.decide(approval!.approvalId, { approved: true });
    const reader = new TurnReader(environment.tollgate, handle.workflowId);
    const snapshot = await waitFor(
      () => reader.read(),
      (seen) => (seen.streaming?.toolResults?.length ?? 0) > 0,
    );
    // The turn itself has not recorded the result yet: its activity is still waiting for the model.
    expect(snapshot.closed).toBe(false);
    expect(snapshot.messages.some((message) => message.role === 'tool')).toBe(false);
    const chunks = new TurnRenderer(handle.workflowId).render(snapshot);
    expect(chunks).toContainEqual({
      type: 'tool-output-available',
      toolCallId: `${marker}-1`,
      output: { deleted: 'e.txt' },
    });
    expect((await handle.result()).text).toBe('deleted e.txt');
  });

  it('does not run the tool again when its worker dies while the model answers', async () => {
    const crashing = await createTestEnvironment({ tools, startWorker: false });
    const runLog = path.join(temporaryFolder('tollgate-runs-'), 'runs.jsonl');
    const workerOptions = { taskQueue: crashing.taskQueue, modelURL: crashing.model.baseURL, runLog };
    let worker: ChildProcess | undefined;
    try {
      const marker = uniqueMarker();
      crashing.model.scriptFor(
        marker,
        { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'f.txt' } }] },
        // The worker dies while this answer is on its way.
        slowly(10_000, { text: 'answered by the worker that died' }),
        { text: 'answered after the crash' },
      );
      worker = await spawnWorkerProcess(workerOptions);
      const handle = await crashing.tollgate.startTurn({
        messages: [{ role: 'user', content: `${marker} go` }],
        toolTimeouts: { heartbeat: '3s' },
      });
      const [approval] = await waitForPending(handle, 1);
      await crashing.tollgate.decide(approval!.approvalId, { approved: true });
      // The checkpoint is on the server: the activity's heartbeat carries the tool's result.
      await waitFor(
        async () => JSON.stringify((await handle.describe()).raw.pendingActivities?.[0]?.heartbeatDetails ?? null),
        (details) => details !== 'null',
      );
      await killProcess(worker, 'SIGKILL');
      worker = await spawnWorkerProcess(workerOptions);

      const result = await handle.result();
      expect(result.text).toBe('answered after the crash');
      const toolRuns = readFileSync(runLog, 'utf8').trim().split('\n');
      expect(toolRuns).toHaveLength(1);
      // The model read the tool's real output, not a note that the call was interrupted.
      const lastRequest = JSON.stringify(crashing.model.requestsFor(marker).at(-1)?.messages);
      expect(lastRequest).toContain('{\\"deleted\\":\\"f.txt\\"}');
      expect(lastRequest).not.toContain('interrupted');
    } finally {
      if (worker) await killProcess(worker, 'SIGTERM');
      await crashing.close();
    }
  }, 90_000);
});
