import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { ToolApprovalPolicy } from '../../../src/activities';
import {
  agentTurnEventsQuery,
  submitToolOutputUpdate,
  toolApprovalResponseSignal,
} from '../../../src/workflows/definitions';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { resultsOf } from '../../support/results-of';

// Reads under /tmp are fine, deploys are never made by a bot, everything else goes to a person.
const policy: ToolApprovalPolicy = async ({ toolName, input }) => {
  if (toolName === 'deleteFile' && String((input as { path: string }).path).startsWith('/tmp/')) return 'approve';
  if (toolName === 'deploy') return { decision: 'deny', reason: 'deploys need a change ticket' };
  return 'ask';
};

const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools, onToolApproval: policy });
});
afterAll(async () => {
  await environment?.close();
});

const runsOf = (toolCallId: string) => runs.filter((run) => run.toolCallId === toolCallId);
const outputsOf = (messages: { role: string; content: unknown }[]) =>
  Object.fromEntries(resultsOf(messages).map((part) => [part.toolCallId, part.output]));

describe('agentTurn approval policies', () => {
  it("asks for every call of a step with approvalBatch 'all-if-any', and takes a partial decision", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-look`, name: 'lookup', arguments: { query: 'q' } },
          { id: `${marker}-del`, name: 'deleteFile', arguments: { path: 'home.txt' } },
        ],
      },
      { text: 'ok' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} go` }],
      approvalBatch: 'all-if-any',
    });
    const pending = await waitForPending(handle, 2);
    expect(pending.map((approval) => approval.toolName)).toEqual(['lookup', 'deleteFile']);
    expect(runsOf(`${marker}-look`)).toHaveLength(0);
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: pending[0]!.approvalId, approved: true },
      { approvalId: pending[1]!.approvalId, approved: false, reason: 'not home' },
    ]);
    const result = await handle.result();
    expect(runsOf(`${marker}-look`)).toHaveLength(1);
    expect(outputsOf(result.messages)[`${marker}-del`]).toEqual({ type: 'execution-denied', reason: 'not home' });
  });

  it("lets the worker's onToolApproval policy approve or deny before anyone is asked, recorded as 'policy'", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-tmp`, name: 'deleteFile', arguments: { path: '/tmp/cache' } },
          { id: `${marker}-deploy`, name: 'deploy', arguments: { service: 'api' } },
          { id: `${marker}-home`, name: 'deleteFile', arguments: { path: '/home/me' } },
        ],
      },
      { text: 'done' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const pending = await waitForPending(handle, 1);
    expect(pending[0]!.toolCallId).toBe(`${marker}-home`);
    await environment.tollgate.decide(pending[0]!.approvalId, { approved: true, approver: 'ana' });
    const result = await handle.result();

    expect(result.audit.map((entry) => [entry.toolCallId, entry.decision, entry.approver, entry.via])).toEqual([
      [`${marker}-tmp`, 'approved', 'policy', 'policy'],
      [`${marker}-deploy`, 'denied', 'policy', 'policy'],
      [`${marker}-home`, 'approved', 'ana', 'update'],
    ]);
    expect(outputsOf(result.messages)[`${marker}-deploy`]).toEqual({
      type: 'execution-denied',
      reason: 'deploys need a change ticket',
    });
    expect(runsOf(`${marker}-tmp`)).toHaveLength(1);
    expect(runsOf(`${marker}-deploy`)).toHaveLength(0);

    const events = await handle.query(agentTurnEventsQuery);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        'turn-started',
        'model-called',
        'approval-requested',
        'approval-decided',
        'tool-started',
        'tool-finished',
        'turn-completed',
      ]),
    );
    expect(events.at(-1)).toMatchObject({ type: 'turn-completed', detail: 'completed' });
  });

  it('waits for a client-executed tool and takes its validated output through submitToolOutput', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-pick`, name: 'pickColor', arguments: { prompt: 'favourite?' } }] },
      // A slow model keeps the turn open while the test sends more submissions.
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return { text: 'teal it is' };
      },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} pick` }] });
    const state = await waitFor(
      () => environment.tollgate.state(handle.workflowId),
      (current) => current.status === 'awaiting-tool-output',
    );
    expect(state.awaitingOutput).toEqual([
      { toolCallId: `${marker}-pick`, toolName: 'pickColor', input: { prompt: 'favourite?' } },
    ]);

    const submit = (args: object) => handle.executeUpdate(submitToolOutputUpdate, { args: [args as never] });
    await expect(submit({ toolCallId: `${marker}-pick`, output: { color: 'teal' } })).rejects.toMatchObject({
      cause: { message: expect.stringContaining('Invalid output for tool "pickColor"') },
    });
    await expect(submit({ toolCallId: 'nope', output: {} })).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    const recorded = await submit({ toolCallId: `${marker}-pick`, output: { color: '#008080' } });
    expect(recorded.output).toEqual({ type: 'json', value: { color: '#008080' } });
    expect(await submit({ toolCallId: `${marker}-pick`, output: { color: '#008080' } })).toEqual(recorded);
    await expect(submit({ toolCallId: `${marker}-pick`, output: { color: '#ff0000' } })).rejects.toMatchObject({
      cause: { message: expect.stringContaining('first one wins') },
    });

    const result = await handle.result();
    expect(result.text).toBe('teal it is');
    expect(outputsOf(result.messages)[`${marker}-pick`]).toEqual({ type: 'json', value: { color: '#008080' } });
  });

  it("expires a tool's approval on its own timeout; late decisions are refused or recorded as late", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-launch`, name: 'launch', arguments: { job: 'nightly' } },
          { id: `${marker}-del`, name: 'deleteFile', arguments: { path: 'x' } },
        ],
      },
      { text: 'launch expired' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    // The launch approval expires after its own second; the deleteFile one has no limit and waits on.
    const state = await waitFor(
      () => environment.tollgate.state(handle.workflowId),
      (current) => current.pending.length === 1 && current.audit.some((entry) => entry.decision === 'expired'),
    );
    const launch = state.audit.find((entry) => entry.toolName === 'launch')!;
    const del = state.pending.find((approval) => approval.toolName === 'deleteFile')!;
    expect(launch.expiresAt).toBeDefined();
    expect(del.expiresAt).toBeUndefined();
    await expect(environment.tollgate.decide(launch.approvalId, { approved: true })).rejects.toMatchObject({
      code: 'expired',
      message: expect.stringContaining('expired'),
    });
    await handle.signal(toolApprovalResponseSignal, { approvalId: launch.approvalId, approved: true });
    await environment.tollgate.decide(del.approvalId, { approved: true });
    const result = await handle.result();

    expect(runsOf(`${marker}-launch`)).toHaveLength(0);
    expect(outputsOf(result.messages)[`${marker}-launch`]).toEqual({
      type: 'execution-denied',
      reason: expect.stringMatching(/expired/),
    });
    expect(result.ignoredDecisions).toEqual([expect.objectContaining({ cause: 'expired' })]);
  });

  it("fails the turn when an approval expires and the turn says onExpire: 'fail'", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(marker, {
      toolCalls: [{ id: `${marker}-del`, name: 'deleteFile', arguments: { path: 'x' } }],
    });
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} go` }],
      approvalTimeout: '500ms',
      onExpire: 'fail',
    });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({
      type: 'ApprovalExpired',
      message: expect.stringContaining('expired'),
    });
    expect(runsOf(`${marker}-del`)).toHaveLength(0);
  });
});
