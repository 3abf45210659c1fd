import { NativeConnection, Worker } from '@temporalio/worker';
import type { BenchWorkers } from '../../bench/bench-workers';
import { benchToolNames, createBenchTools } from '../../bench/bench-tools';
import { createHandLoopActivities } from '../../bench/hand-loop-activities';
import { HandLoopSystem } from '../../bench/hand-loop-system';
import { waitForApprovalRequest } from '../../bench/measure-latency';
import { TollgateSystem } from '../../bench/tollgate-system';
import { pendingApprovalsSearchAttribute, waitingToolsSearchAttribute } from '../../src/workflows/definitions';
import { createTestEnvironment, waitFor, type TestEnvironment } from '../support/test-environment';
import { routeWorkerLogsToFile } from '../support/test-logs';

/** Tool starts by turn key, reported by both workers' tools as the bench's workers report them. */
class ToolStarts implements BenchWorkers {
  readonly pids = [process.pid];
  private readonly starts = new Map<string, number>();
  readonly record = (turn: string) => this.starts.set(turn, (this.starts.get(turn) ?? 0) + 1);
  async toolStarted(turn: string): Promise<number> {
    return this.starts.has(turn) ? Date.now() : Promise.reject(new Error(`no tool start for ${turn}`));
  }
  toolStartCount(turn: string): number {
    return this.starts.get(turn) ?? 0;
  }
  async residentBytes(): Promise<number> {
    return 0;
  }
}

// The bench's fair baseline: a hand-written agent loop on Temporal must make the same model calls, run the same tool
// and wait the same way as a Tollgate turn, or its ratios compare different work.
describe('the hand-written loop of the bench', () => {
  const starts = new ToolStarts();
  let environment: TestEnvironment;
  let connection: NativeConnection;
  let handLoopWorker: { worker: Worker; done: Promise<void> };
  const limits = { pollMs: 20, stepTimeoutMs: 20_000 };
  /** The bench's hand-written loop on this test's worker, decided by update. */
  const handLoop = () =>
    new HandLoopSystem(environment.client, environment.model, `${environment.taskQueue}-hand-loop`, starts, 'update');

  beforeAll(async () => {
    routeWorkerLogsToFile();
    environment = await createTestEnvironment({ tools: createBenchTools(starts.record) });
    connection = await NativeConnection.connect({ address: environment.address });
    const worker = await Worker.create({
      connection,
      taskQueue: `${environment.taskQueue}-hand-loop`,
      workflowsPath: require.resolve('../../bench/hand-loop-workflow'),
      activities: createHandLoopActivities(
        { baseURL: environment.model.baseURL, apiKey: 'test', model: 'tollgate-scripted' },
        starts.record,
      ),
    });
    handLoopWorker = { worker, done: worker.run() };
  });

  afterAll(async () => {
    handLoopWorker.worker.shutdown();
    await handLoopWorker.done;
    await connection.close();
    await environment.close();
  });

  it('asks for one approval, runs the tool once it is approved, and calls the model as often as Tollgate, unstreamed', async () => {
    const systems = {
      handLoop: handLoop(),
      tollgate: new TollgateSystem(environment.tollgate, environment.model, starts, 'update'),
    };
    for (const [name, system] of Object.entries(systems)) {
      const key = `[bench-test-${name}-${Date.now()}]`;
      const turn = await system.start(key);
      const approvalId = await waitForApprovalRequest(system, turn, limits);
      expect(starts.toolStartCount(key)).toBe(0);
      await system.approve(turn, approvalId);
      await system.finished(turn);
      expect(starts.toolStartCount(key)).toBe(1);
      const requests = environment.model.requestsFor(key);
      expect(requests.map((request) => request.toolNames)).toEqual([
        [benchToolNames.approve],
        [benchToolNames.approve],
      ]);
      if (name === 'handLoop') expect(requests.map((request) => request.stream)).toEqual([false, false]);
    }
  });

  it('refuses a decision for an approval it does not wait for, and records nothing', async () => {
    const system = handLoop();
    const key = `[bench-test-stranger-${Date.now()}]`;
    const turn = await system.start(key);
    const approvalId = await waitForApprovalRequest(system, turn, limits);
    await expect(system.approve(turn, `${approvalId}-not-this-one`)).rejects.toThrow('did not record the decision');
    expect(await system.pendingApproval(turn)).toBe(approvalId);
    await system.approve(turn, approvalId);
    await system.finished(turn);
  });

  it("keeps Tollgate's search attributes while it waits when told to, so that feature can be priced apart", async () => {
    const system = handLoop();
    const attributesOf = async (workflowId: string) =>
      (await environment.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes;
    process.env.BENCH_HAND_LOOP_LISTS_WAITING = '1';
    try {
      const key = `[bench-test-listed-${Date.now()}]`;
      const turn = await system.start(key);
      const approvalId = await waitForApprovalRequest(system, turn, limits);
      const waiting = await waitFor(
        () => attributesOf(turn.workflowId),
        (attributes) => attributes.get(pendingApprovalsSearchAttribute)?.length === 1,
      );
      expect(waiting.get(pendingApprovalsSearchAttribute)).toEqual([approvalId]);
      expect(waiting.get(waitingToolsSearchAttribute)).toEqual([benchToolNames.approve]);
      await system.approve(turn, approvalId);
      await system.finished(turn);
      // Cleared once decided, in the decision's own workflow task: before the tool was scheduled, as Tollgate does.
      const events = (await environment.client.workflow.getHandle(turn.workflowId).fetchHistory()).events ?? [];
      const toolScheduled = events.findIndex(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
      );
      expect(toolScheduled).toBeGreaterThan(0);
      const upsertsBeforeTool = events
        .slice(0, toolScheduled)
        .filter((event) => event.upsertWorkflowSearchAttributesEventAttributes).length;
      expect(upsertsBeforeTool).toBe(2);
      const ended = await attributesOf(turn.workflowId);
      expect(ended.get(pendingApprovalsSearchAttribute)).toBeUndefined();
      expect(ended.get(waitingToolsSearchAttribute)).toBeUndefined();
    } finally {
      delete process.env.BENCH_HAND_LOOP_LISTS_WAITING;
    }
    // Without the switch the loop keeps none, as a loop from the samples would.
    const plain = await system.start(`[bench-test-unlisted-${Date.now()}]`);
    const approvalId = await waitForApprovalRequest(system, plain, limits);
    expect((await attributesOf(plain.workflowId)).get(pendingApprovalsSearchAttribute)).toBeUndefined();
    await system.approve(plain, approvalId);
    await system.finished(plain);
  });
});
