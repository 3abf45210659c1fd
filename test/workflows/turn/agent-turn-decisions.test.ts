import { WorkflowUpdateFailedError } from '@temporalio/client';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { resultsOf } from '../../support/results-of';
import {
  pendingToolApprovalsQuery,
  respondToToolApprovalsUpdate,
  toolApprovalResponseSignal,
} from '../../../src/workflows/definitions';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => {
  await environment?.close();
});

async function startWithThreeCalls() {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    {
      toolCalls: [
        { id: `${marker}-a`, name: 'deleteFile', arguments: { path: 'a.txt' } },
        { id: `${marker}-look`, name: 'lookup', arguments: { query: 'q' } },
        { id: `${marker}-b`, name: 'deleteFile', arguments: { path: 'b.txt' } },
      ],
    },
    { text: 'finished' },
  );
  const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} tidy` }] });
  const pending = await waitForPending(handle, 2);
  const idOf = (suffix: string) =>
    pending.find((approval) => approval.toolCallId === `${marker}-${suffix}`)!.approvalId;
  return { marker, handle, a: idOf('a'), b: idOf('b') };
}

describe('agentTurn decisions', () => {
  it('runs the calls that need no approval while others wait, and takes a partial batch decision in one update', async () => {
    const { marker, handle, a, b } = await startWithThreeCalls();
    await waitFor(
      async () => runs.filter((run) => run.toolCallId === `${marker}-look`).length,
      (count) => count === 1,
    );
    const recorded = await handle.executeUpdate(respondToToolApprovalsUpdate, {
      args: [
        {
          responses: [
            { approvalId: a, approved: true, approver: 'ana' },
            { approvalId: b, approved: false, reason: 'keep b', approver: 'ana' },
          ],
        },
      ],
    });
    expect(recorded.map((entry) => entry.decision)).toEqual(['approved', 'denied']);
    const result = await handle.result();
    expect(resultsOf(result.messages).map((part) => [part.toolCallId, part.output.type])).toEqual([
      [`${marker}-a`, 'json'],
      [`${marker}-look`, 'text'],
      [`${marker}-b`, 'execution-denied'],
    ]);
    expect(result.messages[1]?.content).toEqual(
      expect.arrayContaining([
        { type: 'tool-approval-response', approvalId: a, approved: true },
        { type: 'tool-approval-response', approvalId: b, approved: false, reason: 'keep b' },
      ]),
    );
    expect(runs.filter((run) => run.toolCallId === `${marker}-b`)).toHaveLength(0);
  });

  it.each([
    ['first, then second', false],
    ['second, then first', true],
  ])('takes separate signals in either order (%s)', async (_order, reversed) => {
    const { marker, handle, a, b } = await startWithThreeCalls();
    const signals = [
      { approvalId: a, approved: false, reason: 'no' },
      { approvalId: b, approved: true },
    ];
    if (reversed) signals.reverse();
    for (const signal of signals) await handle.signal(toolApprovalResponseSignal, signal);
    const result = await handle.result();
    const outputs = Object.fromEntries(resultsOf(result.messages).map((part) => [part.toolCallId, part.output]));
    expect(outputs[`${marker}-a`]).toEqual({ type: 'execution-denied', reason: 'no' });
    expect(outputs[`${marker}-b`]).toEqual({ type: 'json', value: { deleted: 'b.txt' } });
    expect(runs.filter((run) => run.toolCallId === `${marker}-b`)).toHaveLength(1);
  });

  it('rejects an unknown approvalId by update with a clear message and changes nothing', async () => {
    const { handle, a, b } = await startWithThreeCalls();
    const attempt = handle.executeUpdate(respondToToolApprovalsUpdate, {
      args: [
        {
          responses: [
            { approvalId: a, approved: true },
            { approvalId: 'nope', approved: true },
          ],
        },
      ],
    });
    await expect(attempt).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    await expect(attempt).rejects.toMatchObject({
      cause: { message: expect.stringContaining('Unknown approvalId "nope"') },
    });
    // All or nothing: the valid decision in the rejected batch was not applied either.
    expect(await handle.query(pendingToolApprovalsQuery)).toHaveLength(2);
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: a, approved: false },
      { approvalId: b, approved: false },
    ]);
    expect((await handle.result()).status).toBe('completed');
  });

  it('ignores a signal with an unknown approvalId or a malformed body and stays healthy', async () => {
    const { handle, a, b } = await startWithThreeCalls();
    await handle.signal(toolApprovalResponseSignal, { approvalId: 'nope', approved: true });
    await handle.signal(toolApprovalResponseSignal, { approvalId: a, approved: 'yes' } as never);
    const state = await waitFor(
      () => environment.tollgate.state(handle.workflowId),
      (current) => current.ignoredDecisions.length === 2,
    );
    expect(state.ignoredDecisions.map((ignored) => ignored.cause)).toEqual(['unknown-approval', 'invalid']);
    expect(state.pending).toHaveLength(2);
    await handle.signal(toolApprovalResponseSignal, { approvalId: a, approved: true });
    await handle.signal(toolApprovalResponseSignal, { approvalId: b, approved: true });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.ignoredDecisions).toHaveLength(2);
  });

  it('keeps the first decision: an identical repeat is harmless and a conflicting one is refused', async () => {
    const { marker, handle, a, b } = await startWithThreeCalls();
    const first = await environment.tollgate.decide(a, { approved: true, approver: 'ana' });
    const repeat = await environment.tollgate.decide(a, { approved: true, approver: 'bob' });
    expect(first.outcome).toBe('recorded');
    expect(repeat).toEqual({ ...first, outcome: 'repeat' });
    await expect(environment.tollgate.decide(a, { approved: false, approver: 'eve' })).rejects.toMatchObject({
      name: 'ApprovalDecisionError',
      code: 'conflict',
      message: expect.stringContaining('already approved by ana'),
    });
    // A conflicting signal cannot reject, so it is recorded and ignored.
    await handle.signal(toolApprovalResponseSignal, { approvalId: a, approved: false, approver: 'mallory' });
    await environment.tollgate.decide(b, { approved: true });
    const result = await handle.result();
    expect(result.audit.find((entry) => entry.approvalId === a)).toMatchObject({
      decision: 'approved',
      approver: 'ana',
    });
    expect(result.ignoredDecisions).toEqual([
      expect.objectContaining({ cause: 'conflict', received: expect.objectContaining({ approver: 'mallory' }) }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-a`)).toHaveLength(1);
  });

  it('refuses an update whose body breaks the contract, naming the problem', async () => {
    const { handle, a, b } = await startWithThreeCalls();
    await expect(
      handle.executeUpdate(respondToToolApprovalsUpdate, {
        args: [{ responses: [{ approvalId: a, approved: true, extra: 1 }] } as never],
      }),
    ).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/Invalid respondToToolApprovals input[\s\S]*extra/) },
    });
    await expect(
      handle.executeUpdate(respondToToolApprovalsUpdate, {
        args: [
          {
            responses: [
              { approvalId: a, approved: true },
              { approvalId: a, approved: false },
            ],
          },
        ],
      }),
    ).rejects.toMatchObject({ cause: { message: expect.stringContaining('both approves and denies') } });
    expect(await handle.query(pendingToolApprovalsQuery)).toHaveLength(2);
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: a, approved: true },
      { approvalId: b, approved: true },
    ]);
    await handle.result();
  });

  it('routes a bare approvalId to its turn without a visibility query', async () => {
    const { handle, a, b } = await startWithThreeCalls();
    expect(await environment.tollgate.workflowIdOf(a)).toBe(handle.workflowId);
    await environment.tollgate.sendDecision(a, { approved: true });
    await environment.tollgate.sendDecision(b, { approved: true });
    expect((await handle.result()).audit.map((entry) => entry.via)).toEqual(['signal', 'signal']);
  });

  it('lists pending approvals of running turns through the search attribute and the query', async () => {
    const { handle, a, b } = await startWithThreeCalls();
    const listed = await waitFor(
      () => environment.tollgate.pending(),
      (list) => list.filter((approval) => approval.workflowId === handle.workflowId).length === 2,
    );
    expect(
      listed
        .filter((approval) => approval.workflowId === handle.workflowId)
        .map((approval) => approval.approvalId)
        .sort(),
    ).toEqual([a, b].sort());
    const description = await waitFor(
      () => handle.describe(),
      (current) => (current.searchAttributes.TollgatePendingApprovals as string[] | undefined)?.length === 2,
    );
    expect(description.searchAttributes.TollgatePendingApprovals).toEqual(expect.arrayContaining([a, b]));
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: a, approved: true },
      { approvalId: b, approved: true },
    ]);
    await handle.result();
  });
});
