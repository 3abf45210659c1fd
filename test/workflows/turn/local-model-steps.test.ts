import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
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

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const localActivityMarkers = (events: HistoryEvent[]) =>
  events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');

/**
 * The events a turn records besides its workflow tasks. How many workflow tasks a turn takes moves with the machine's
 * load (a local activity that runs past most of a task's timeout completes the task and takes another; a task that
 * times out on a busy worker is tried again), so a count that must hold everywhere leaves them out.
 */
const turnEvents = (events: HistoryEvent[]) =>
  events.filter(
    (event) =>
      !event.workflowTaskScheduledEventAttributes &&
      !event.workflowTaskStartedEventAttributes &&
      !event.workflowTaskCompletedEventAttributes &&
      !event.workflowTaskTimedOutEventAttributes &&
      !event.workflowTaskFailedEventAttributes,
  );

describe("agentTurn with modelSteps: 'local'", () => {
  it('runs each model step as a local activity: a marker in the history instead of three activity events, the tool still an activity', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'a.txt' } }] },
      { text: 'deleted a.txt' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete a.txt` }],
      modelSteps: 'local',
    });
    const [approval] = await waitForPending(handle, 1);
    await environment.tollgate.decide(approval!.approvalId, { approved: true });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(result.text).toBe('deleted a.txt');
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    // The model read the tool's result in the second step.
    expect(JSON.stringify(environment.model.requestsFor(marker).at(-1)?.messages)).toContain(`${marker}-1`);
    // A local step cannot heartbeat, so nobody could watch its stream: it asks for the whole answer at once.
    expect(environment.model.requestsFor(marker).map((request) => request.stream)).toEqual([false, false]);
    const events = (await handle.fetchHistory()).events ?? [];
    expect(scheduledActivities(events)).toEqual(['runTool']);
    expect(localActivityMarkers(events)).toHaveLength(2);
    // Started, the two markers, the update accepted and completed, the tool's three activity events, two search
    // attribute upserts and the end: 11 (15 with model steps as activities, each three activity events instead of a
    // marker). On an idle worker three workflow tasks come with them, 20 events in all (docs/inside-a-turn.md).
    expect(turnEvents(events)).toHaveLength(11);
  });

  it('retries a local model step after a 500 and a 429, and fails at once on a 400 with the reason', async () => {
    const retried = uniqueMarker();
    environment.model.scriptFor(
      retried,
      { error: { status: 500, message: 'upstream hiccup' } },
      { error: { status: 429, message: 'slow down' } },
      { text: 'third time lucky' },
    );
    const result = await (
      await environment.tollgate.startTurn({
        messages: [{ role: 'user', content: `${retried} hi` }],
        modelSteps: 'local',
      })
    ).result();
    expect(result.text).toBe('third time lucky');
    expect(environment.model.requestsFor(retried)).toHaveLength(3);

    const rejected = uniqueMarker();
    environment.model.scriptFor(rejected, { error: { status: 400, message: 'context length exceeded' } });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${rejected} hi` }],
      modelSteps: 'local',
    });
    const failure = await handle.result().catch((error: unknown) => error as Error);
    const messages: string[] = [];
    for (let error: Error | undefined = failure as Error; error; error = error.cause as Error | undefined)
      messages.push(error.message);
    expect(messages.join('\n')).toMatch(/rejected the request \(HTTP 400\)[\s\S]*context length exceeded/);
    expect(environment.model.requestsFor(rejected)).toHaveLength(1);
  });

  it('reaches every turn of a conversation that asks for it', async () => {
    const marker = uniqueMarker();
    const conversationId = `local-steps-${marker}`;
    environment.model.scriptFor(marker, { text: 'hello' });
    const { turnId } = await environment.tollgate.sendMessage(
      conversationId,
      { content: `${marker} hi` },
      { turn: { modelSteps: 'local' } },
    );
    await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.turnCount === 1 && state.currentTurnId === undefined,
    );
    const events = (await environment.tollgate.turn(turnId).fetchHistory()).events ?? [];
    expect(scheduledActivities(events)).toEqual([]);
    expect(localActivityMarkers(events)).toHaveLength(1);
  });

  it('refuses a turn whose modelSteps is neither activity nor local, saying so', async () => {
    await expect(
      environment.tollgate.startTurn({
        messages: [{ role: 'user', content: 'hi' }],
        modelSteps: 'remote' as 'local',
      }),
    ).rejects.toThrow(/modelSteps/);
  });

  it('runs a local model step again on another worker when its worker dies during the step', async () => {
    const crashing = await createTestEnvironment({ tools, startWorker: false });
    const runLog = path.join(temporaryFolder('tollgate-runs-'), 'runs.jsonl');
    const workerOptions = { taskQueue: crashing.taskQueue, modelURL: crashing.model.baseURL, runLog };
    let worker: ChildProcess | undefined;
    try {
      const marker = uniqueMarker();
      crashing.model.scriptFor(
        marker,
        // The first attempt answers slowly, so the worker dies in the middle of it. (A local step asks for the
        // whole answer, not a stream: a delay between streamed chunks would not hold it.)
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 5_000));
          return { text: 'answered by the worker that died' };
        },
        { text: 'answered after the crash' },
      );
      worker = await spawnWorkerProcess(workerOptions);
      const handle = await crashing.tollgate.startTurn({
        messages: [{ role: 'user', content: `${marker} hi` }],
        modelSteps: 'local',
      });
      await waitFor(
        async () => crashing.model.requestsFor(marker).length,
        (count) => count === 1,
      );
      await killProcess(worker, 'SIGKILL');
      worker = await spawnWorkerProcess(workerOptions);

      const result = await handle.result();
      expect(result.text).toBe('answered after the crash');
      expect(result.steps).toBe(1);
      expect(crashing.model.requestsFor(marker)).toHaveLength(2);
      const events = (await handle.fetchHistory()).events ?? [];
      // The dead worker's step left nothing behind: one marker, for the step that finished.
      expect(localActivityMarkers(events)).toHaveLength(1);
    } finally {
      if (worker) await killProcess(worker, 'SIGTERM');
      await crashing.close();
    }
  }, 90_000);
});
