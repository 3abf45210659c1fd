import { NativeConnection, Worker } from '@temporalio/worker';
import { isV1TurnsConflict, runningExecutionsQuery } from '../../src/versioning/check-v1-turns';
import { v1TurnsFromEnvironment } from '../../src/versioning/v1-turns-setting';
import { createTollgateWorker } from '../../src/worker';
import type { V1Turns } from '../../src/workflows/turn-version';
import {
  createTestEnvironment,
  testApprovalSecret,
  uniqueMarker,
  waitFor,
  waitForPending,
  workflowBundlePath,
  workflowBundleWithV1TurnsPath,
  type TestEnvironment,
} from '../support/test-environment';
import { createTestTools } from '../support/test-tools';

const { tools } = createTestTools();
let environment: TestEnvironment;
let connection: NativeConnection;

beforeAll(async () => {
  // No worker of the environment's own: each test starts the workers it is about, on a task queue of its own.
  environment = await createTestEnvironment({ tools, startWorker: false });
  connection = await NativeConnection.connect({ address: environment.address });
});
afterAll(async () => {
  await connection?.close();
  await environment?.close();
});

let queueCount = 0;

/** A Tollgate worker with `v1Turns` on `taskQueue`, its bundle built for that mode. */
function tollgateWorker(taskQueue: string, v1Turns: V1Turns): Promise<Worker> {
  return createTollgateWorker({
    connection,
    taskQueue,
    tools,
    v1Turns,
    policy: {},
    approvalSecret: testApprovalSecret,
    model: { baseURL: environment.model.baseURL, apiKey: 'test', model: 'tollgate-scripted' },
    workflowBundle: { codePath: v1Turns === 'run' ? workflowBundleWithV1TurnsPath() : workflowBundlePath() },
    workerOptions: { shutdownGraceTime: '1s' },
  });
}

/** Runs `v1Turns` workers' turns on a new task queue until `count` of them wait for a decision. */
async function waitingTurns(v1Turns: V1Turns, count: number) {
  const taskQueue = `${environment.taskQueue}-${(queueCount += 1)}`;
  const worker = await tollgateWorker(taskQueue, v1Turns);
  const handles = await worker.runUntil(async () => {
    const started = [];
    for (let index = 0; index < count; index += 1) {
      const marker = uniqueMarker();
      environment.model.scriptFor(
        marker,
        { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'a' } }] },
        { text: 'done' },
      );
      const handle = await environment.client.workflow.start('agentTurn', {
        taskQueue,
        workflowId: `check-${v1Turns}-${marker}`,
        args: [{ messages: [{ role: 'user', content: `${marker} go` }] }],
      });
      await waitForPending(handle, 1);
      started.push(handle);
    }
    return started;
  });
  return { taskQueue, handles };
}

/** Waits until visibility lists `count` running executions on `taskQueue` matching `extra`. */
async function listed(taskQueue: string, count: number, extra = ''): Promise<void> {
  const query = `ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue}'${extra}`;
  await waitFor(
    async () => (await environment.client.workflow.count(query)).count,
    (found) => found === count,
  );
}

/** Whether a worker refuses to start, and why. */
async function refusal(start: Promise<Worker>): Promise<Error | undefined> {
  try {
    const worker = await start;
    await worker.runUntil(Promise.resolve());
    return undefined;
  } catch (error) {
    if (isV1TurnsConflict(error)) return error;
    throw error;
  }
}

describe('the v1 turns start-up check', () => {
  it('stops a worker with v1 turns retired while a v1 turn runs on its task queue, and says what to do', async () => {
    const taskQueue = `${environment.taskQueue}-${(queueCount += 1)}`;
    const v1Worker = await Worker.create({
      connection,
      taskQueue,
      workflowsPath: require.resolve('./v1-turn-workflow'),
      activities: { describeTools: async () => [] },
    });
    await v1Worker.runUntil(async () => {
      const handle = await environment.client.workflow.start('agentTurn', { taskQueue, workflowId: `v1-${taskQueue}` });
      await waitFor(
        async () => (await handle.fetchHistory()).events ?? [],
        (events) => events.some((event) => event.activityTaskCompletedEventAttributes),
      );
    });
    await listed(taskQueue, 1);

    const error = await refusal(tollgateWorker(taskQueue, 'retired'));
    expect(error?.message).toContain('1 running execution(s)');
    expect(error?.message).toContain(`v1-${taskQueue}`);
    expect(error?.message).toContain('TOLLGATE_V1_TURNS=run');
    expect(error?.message).toContain("v1Turns: 'run'");
    // The count the message tells the operator to watch finds it.
    const countQuery = `${runningExecutionsQuery(taskQueue)} AND TemporalChangeVersion IS NULL`;
    expect(error?.message).toContain(countQuery);
    expect((await environment.client.workflow.count(countQuery)).count).toBe(1);
    // The worker that still runs v1 turns is the one that may finish it.
    expect(await refusal(tollgateWorker(taskQueue, 'run'))).toBeUndefined();
  });

  it('stops a worker that runs v1 turns while a turn without the marker runs on its task queue', async () => {
    const { taskQueue, handles } = await waitingTurns('retired', 1);
    await listed(taskQueue, 1);

    const error = await refusal(tollgateWorker(taskQueue, 'run'));
    expect(error?.message).toContain(handles[0]!.workflowId);
    expect(error?.message).toContain('would replay it as a v1 turn and fail it');
    expect(error?.message).toContain("v1Turns: 'retired'");
    expect(await refusal(tollgateWorker(taskQueue, 'retired'))).toBeUndefined();
  });

  it('lets both kinds of worker start while only turns with the marker run, and a retired one finishes them', async () => {
    const { taskQueue, handles } = await waitingTurns('run', 2);
    await listed(taskQueue, 2, " AND TemporalChangeVersion = 'turn-v2'");

    expect(await refusal(tollgateWorker(taskQueue, 'run'))).toBeUndefined();
    const retired = await tollgateWorker(taskQueue, 'retired');
    const results = await retired.runUntil(async () => {
      const finished = [];
      for (const handle of handles) {
        const [approval] = await waitForPending(handle, 1);
        await handle.signal('toolApprovalResponse', { approvalId: approval!.approvalId, approved: true });
        finished.push(await handle.result());
      }
      return finished;
    });
    expect(results.map((result) => (result as { status: string }).status)).toEqual(['completed', 'completed']);
  });

  it('can be skipped, for callers without the rights to list workflows', async () => {
    const { taskQueue } = await waitingTurns('retired', 1);
    await listed(taskQueue, 1);
    const worker = createTollgateWorker({
      connection,
      taskQueue,
      tools,
      v1Turns: 'run',
      v1TurnsCheck: false,
      policy: {},
      model: { baseURL: environment.model.baseURL, apiKey: 'test', model: 'tollgate-scripted' },
      workflowBundle: { codePath: workflowBundleWithV1TurnsPath() },
    });
    expect(await refusal(worker)).toBeUndefined();
  });
});

describe('v1TurnsFromEnvironment', () => {
  it('retires v1 turns unless TOLLGATE_V1_TURNS says run, and names the allowed values otherwise', () => {
    expect(v1TurnsFromEnvironment({})).toBe('retired');
    expect(v1TurnsFromEnvironment({ TOLLGATE_V1_TURNS: 'run' })).toBe('run');
    expect(v1TurnsFromEnvironment({ TOLLGATE_V1_TURNS: 'retired' })).toBe('retired');
    expect(() => v1TurnsFromEnvironment({ TOLLGATE_V1_TURNS: 'yes' })).toThrow(/"run".*"retired".*got "yes"/);
  });
});
