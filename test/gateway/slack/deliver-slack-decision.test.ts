import type { ApprovalDecisions, DecisionActor, DecisionRequest } from '../../../src/gateway';
import { GatewayError } from '../../../src/gateway';
import { deliverSlackDecision, type SlackDecisionClick } from '../../../src/gateway/slack';
import type { ToolApprovalAuditEntry } from '../../../src/protocol';

const click: SlackDecisionClick = {
  type: 'click',
  approver: 'slack:U123',
  userId: 'U123',
  approvalId: 'dHVybi0x.abc',
  approved: true,
};

const recorded = {
  approvalId: click.approvalId,
  decision: 'approved',
  approver: 'slack:U123',
} as ToolApprovalAuditEntry;

/** Decisions that fail with `failures` in turn, then record the decision; every try is kept. */
function scriptedDecisions(failures: unknown[]) {
  const tries: Array<{ approver: DecisionActor; request: DecisionRequest; channel: string | undefined }> = [];
  const decisions = {
    async decideOne(approver: DecisionActor, request: DecisionRequest, channel?: string) {
      tries.push({ approver, request, channel });
      const failure = failures.shift();
      if (failure) throw failure;
      return recorded;
    },
  } as unknown as ApprovalDecisions;
  return { decisions, tries };
}

const fast = { attempts: 4, initialDelayMs: 1, maxDelayMs: 5 };

describe('deliverSlackDecision', () => {
  it('retries while Temporal is unavailable and delivers the decision under the Slack identity', async () => {
    const { decisions, tries } = scriptedDecisions([
      new GatewayError('unavailable', 'Temporal is unavailable; retry later.'),
      Object.assign(new Error('deadline exceeded'), { name: 'ServiceError', cause: { code: 4 } }),
    ]);
    expect(await deliverSlackDecision(decisions, click, fast)).toEqual({
      type: 'recorded',
      decision: recorded,
      attempts: 3,
    });
    expect(tries).toEqual(
      Array.from({ length: 3 }, () => ({
        approver: { person: 'slack:U123', identity: 'slack:U123' },
        request: { approvalId: click.approvalId, approved: true },
        channel: 'slack',
      })),
    );
  });

  it('does not retry a refusal: not allowed, unknown or already decided otherwise', async () => {
    for (const kind of ['forbidden', 'unknown-approval', 'conflict', 'expired'] as const) {
      const { decisions, tries } = scriptedDecisions([new GatewayError(kind, `refused: ${kind}`)]);
      const delivery = await deliverSlackDecision(decisions, click, fast);
      expect(delivery).toMatchObject({ type: 'refused', attempts: 1, problem: { kind } });
      expect(tries).toHaveLength(1);
    }
  });

  it('gives up after the configured number of tries', async () => {
    const down = () => new GatewayError('unavailable', 'Temporal is unavailable; retry later.');
    const { decisions, tries } = scriptedDecisions([down(), down(), down(), down(), down()]);
    expect(await deliverSlackDecision(decisions, click, fast)).toMatchObject({ type: 'undelivered', attempts: 4 });
    expect(tries).toHaveLength(4);
  });

  it('stops retrying when the gateway closes', async () => {
    const down = () => new GatewayError('unavailable', 'Temporal is unavailable; retry later.');
    const { decisions, tries } = scriptedDecisions([down(), down(), down()]);
    const closing = new AbortController();
    const delivery = deliverSlackDecision(decisions, click, { attempts: 10, initialDelayMs: 60_000 }, closing.signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    closing.abort();
    expect(await delivery).toMatchObject({ type: 'undelivered', attempts: 2 });
    expect(tries).toHaveLength(2);
  });
});
