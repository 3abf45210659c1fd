import { PersonDirectory } from '../../../src/identity';
import { pendingToolApprovalsQuery } from '../../../src/workflows/definitions';
import { uniqueMarker, waitForPending } from '../../support/test-environment';
import { expectProblem, startGateway } from '../gateway-fixture';
import { useTurnGateway } from '../../support/turn-gateway-fixture';

const stack = useTurnGateway();

async function startTurnOverRest(marker: string, approvalRules: object) {
  stack.environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'transfer', arguments: { amount: 900, to: 'acme' } }] },
    { text: 'paid' },
  );
  const started = await stack.gateway.call('POST', '/v1/turns', {
    as: 'eve',
    body: { messages: [{ role: 'user', content: `${marker} pay acme` }], approvalRules },
  });
  expect(started.status).toBe(201);
  const handle = stack.environment.tollgate.turn(started.body.workflowId);
  const [approval] = await waitForPending(handle, 1);
  return { handle, approvalId: approval!.approvalId };
}

describe('gateway approver rights', () => {
  it('refuses an approver who is not allowed with 403, changes nothing, and audits the attempt', async () => {
    const marker = uniqueMarker();
    const { handle, approvalId } = await startTurnOverRest(marker, { approvers: ['ana'] });
    const refused = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'bob',
      body: { approved: true },
    });
    expectProblem(refused, 403, 'forbidden');
    expect(await handle.query(pendingToolApprovalsQuery)).toHaveLength(1);
    expect(stack.gateway.audit.list({ approvalId })).toEqual([
      expect.objectContaining({
        approver: 'bob',
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'forbidden' }),
      }),
    ]);
    const accepted = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'ana',
      body: { approved: true },
    });
    expect(accepted.status).toBe(200);
    await handle.result();
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
  });

  it('takes the requester from the token, so self-approval can be refused', async () => {
    const marker = uniqueMarker();
    const { handle, approvalId } = await startTurnOverRest(marker, { allowSelfApproval: false });
    const own = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'eve',
      body: { approved: true },
    });
    expectProblem(own, 403, 'forbidden');
    const other = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'bob',
      body: { approved: true },
    });
    expect(other.status).toBe(200);
    expect((await handle.result()).audit[0]).toMatchObject({ approver: 'bob' });
  });

  it('needs two distinct approvers for a quorum of two', async () => {
    const marker = uniqueMarker();
    const { handle, approvalId } = await startTurnOverRest(marker, { quorum: 2 });
    const first = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'ana',
      body: { approved: true },
    });
    expect(first.body).toMatchObject({ decision: 'awaiting-quorum' });
    const again = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'ana',
      body: { approved: true },
    });
    expect(again.body).toMatchObject({ decision: 'awaiting-quorum' });
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
    const second = await stack.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'bob',
      body: { approved: true },
    });
    expect(second.body).toMatchObject({ decision: 'approved' });
    await handle.result();
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
  });

  it('names people in the turn as the gateway knows them: a channel name a caller writes is resolved to its person', async () => {
    const people = PersonDirectory.fromList([
      { id: 'ana', slack: ['T0001/U0123'], email: ['ana@example.com'] },
      { id: 'bob', slack: ['U0456'] },
      { id: 'eve' },
      { id: 'auditor' },
      { id: 'robot' },
      { id: 'reader' },
    ]);
    const mapped = await startGateway(stack.environment.tollgate, { people });
    try {
      const marker = uniqueMarker();
      stack.environment.model.scriptFor(
        marker,
        { toolCalls: [{ id: `${marker}-1`, name: 'transfer', arguments: { amount: 900, to: 'acme' } }] },
        { text: 'paid' },
      );
      const started = await mapped.call('POST', '/v1/turns', {
        as: 'eve',
        body: {
          messages: [{ role: 'user', content: `${marker} pay acme` }],
          approvalRules: { approvers: ['slack:U0123', 'email:ANA@example.com'] },
        },
      });
      expect(started.status).toBe(201);
      const handle = stack.environment.tollgate.turn(started.body.workflowId);
      const [approval] = await waitForPending(handle, 1);
      // The turn and the gateway compare the same person ids with the same rule.
      expect(approval!.approvers).toEqual(['ana']);
      const refused = await mapped.call('POST', `/v1/approvals/${approval!.approvalId}/decision`, {
        as: 'bob',
        body: { approved: true },
      });
      expectProblem(refused, 403, 'forbidden');
      const accepted = await mapped.call('POST', `/v1/approvals/${approval!.approvalId}/decision`, {
        as: 'ana',
        body: { approved: true },
      });
      expect(accepted.status).toBe(200);
      expect((await handle.result()).audit[0]).toMatchObject({ decision: 'approved', approver: 'ana' });
      expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    } finally {
      await mapped.close();
    }
  });
});
