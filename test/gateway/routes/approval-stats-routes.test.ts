import { uniqueMarker, waitFor, waitForPending } from '../../support/test-environment';
import { expectProblem } from '../gateway-fixture';
import { useTurnGateway } from '../../support/turn-gateway-fixture';

const stack = useTurnGateway();

/** Starts a turn that asks for `tool` once; resolves when the approval waits. */
async function askFor(tool: string, input: unknown) {
  const marker = uniqueMarker();
  stack.environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: tool, arguments: input }] },
    { text: 'ok' },
  );
  const handle = await stack.environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
  const [approval] = await waitForPending(handle, 1);
  return { handle, approvalId: approval!.approvalId };
}

function decide(approvalId: string, as: 'ana' | 'bob' | 'eve', approved: boolean) {
  return stack.gateway.call('POST', `/v1/approvals/${encodeURIComponent(approvalId)}/decision`, {
    as,
    body: { approved, ...(!approved && { reason: 'not now' }) },
  });
}

describe('GET /v1/approvals/stats', () => {
  it('counts approved, denied and expired approvals per tool and per approver, with refused attempts apart', async () => {
    const approvedTurn = await askFor('deploy', { service: 'api' });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await decide(approvedTurn.approvalId, 'bob', true)).status).toBe(200);
    const deniedTurn = await askFor('deploy', { service: 'web' });
    expect((await decide(deniedTurn.approvalId, 'ana', false)).status).toBe(200);
    // Too late and conflicting: refused, kept in the gateway's audit only.
    expect((await decide(deniedTurn.approvalId, 'eve', true)).status).toBe(409);
    // launch expires after 1 s.
    const expiredTurn = await askFor('launch', { job: 'nightly' });
    await Promise.all([approvedTurn, deniedTurn, expiredTurn].map(({ handle }) => handle.result()));

    // Visibility lags a little behind the turns' ends.
    const response = await waitFor(
      () => stack.gateway.call('GET', '/v1/approvals/stats', { as: 'auditor' }),
      (answer) => answer.status !== 200 || answer.body.turnsRead === 3,
    );
    expect(response.status).toBe(200);
    const stats = response.body;
    expect(stats).toMatchObject({ turnsRead: 3, truncated: false, unansweredTurns: 0 });
    expect(Date.parse(stats.until) - Date.parse(stats.since)).toBe(7 * 86_400_000);
    expect(stats.tools).toEqual([
      {
        tool: 'deploy',
        count: 2,
        approved: 1,
        denied: 1,
        expired: 0,
        superseded: 0,
        pending: 0,
        timeToDecisionSeconds: { p50: expect.any(Number), p95: expect.any(Number) },
      },
      expect.objectContaining({ tool: 'launch', count: 1, approved: 0, denied: 0, expired: 1 }),
    ]);
    // bob waited over a second before approving; ana denied at once.
    expect(stats.tools[0].timeToDecisionSeconds.p95).toBeGreaterThanOrEqual(1);
    expect(stats.tools[1].timeToDecisionSeconds).toEqual({ p50: null, p95: null });
    expect(stats.approvers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ approver: 'bob', count: 1, approved: 1, denied: 0, refused: 0 }),
        expect.objectContaining({ approver: 'ana', count: 1, approved: 0, denied: 1, refused: 0 }),
        expect.objectContaining({ approver: 'eve', count: 0, refused: 1 }),
      ]),
    );
    expect(stats.refused).toEqual({ total: 1, byCode: { conflict: 1 } });

    // Bounded: one turn read, and the answer says the window held more.
    const capped = await stack.gateway.call('GET', '/v1/approvals/stats?limit=1', { as: 'auditor' });
    expect(capped.body).toMatchObject({ turnsRead: 1, truncated: true });

    // A window that starts after these turns ended holds none of them.
    const later = await stack.gateway.call(
      'GET',
      `/v1/approvals/stats?since=${encodeURIComponent(new Date().toISOString())}`,
      {
        as: 'auditor',
      },
    );
    expect(later.body).toMatchObject({ turnsRead: 0, tools: [], truncated: false });
  }, 60_000);

  it('takes the window as a duration back from now', async () => {
    const response = await stack.gateway.call('GET', '/v1/approvals/stats?since=24h', { as: 'auditor' });
    expect(response.status).toBe(200);
    expect(Date.parse(response.body.until) - Date.parse(response.body.since)).toBe(86_400_000);
  });

  it('needs audit:read, as GET /v1/audit does', async () => {
    expectProblem(await stack.gateway.call('GET', '/v1/approvals/stats', { as: 'bob' }), 403, 'forbidden');
    expectProblem(await stack.gateway.call('GET', '/v1/approvals/stats', { token: null }), 401, 'unauthorized');
  });

  it('refuses a window it cannot read, a limit out of range and unknown parameters with 400', async () => {
    for (const query of ['since=yesterday', 'since=2999-01-01T00:00:00Z', 'limit=0', 'limit=5000', 'tool=deploy']) {
      expectProblem(
        await stack.gateway.call('GET', `/v1/approvals/stats?${query}`, { as: 'auditor' }),
        400,
        'invalid-request',
      );
    }
  });
});
