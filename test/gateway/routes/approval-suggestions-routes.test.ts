import { uniqueMarker, waitFor, waitForPending } from '../../support/test-environment';
import { expectProblem } from '../gateway-fixture';
import { useTurnGateway } from '../../support/turn-gateway-fixture';

const stack = useTurnGateway();

/** Starts a turn whose one model step makes `calls`; resolves when all of them wait. */
async function turnCalling(calls: Array<{ name: string; arguments: unknown }>) {
  const marker = uniqueMarker();
  stack.environment.model.scriptFor(
    marker,
    { toolCalls: calls.map((call, index) => ({ id: `${marker}-${index}`, ...call })) },
    { text: 'done' },
  );
  const handle = await stack.environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
  const pending = await waitForPending(handle, calls.length);
  return { handle, pending };
}

async function decide(approvalId: string, as: 'ana' | 'bob', approved: boolean) {
  const response = await stack.gateway.call('POST', `/v1/approvals/${encodeURIComponent(approvalId)}/decision`, {
    as,
    body: { approved, ...(!approved && { reason: 'not there' }) },
  });
  expect(response.status).toBe(200);
}

describe('GET /v1/approvals/suggestions', () => {
  it('proposes a tool and an argument pattern people approved every time, with evidence, from real decisions', async () => {
    // deploy: approved 3 of 3 by ana and bob. deleteFile: under drafts/ approved 3 of 3, elsewhere denied.
    const first = await turnCalling([
      { name: 'deploy', arguments: { service: 'api' } },
      { name: 'deploy', arguments: { service: 'web' } },
      { name: 'deleteFile', arguments: { path: 'drafts/a.txt' } },
      { name: 'deleteFile', arguments: { path: 'drafts/old/b.txt' } },
    ]);
    const second = await turnCalling([
      { name: 'deploy', arguments: { service: 'jobs' } },
      { name: 'deleteFile', arguments: { path: 'drafts/c.txt' } },
      { name: 'deleteFile', arguments: { path: 'src/app.ts' } },
    ]);
    const [deployApi, deployWeb, draftA, draftB] = first.pending.map((approval) => approval.approvalId);
    const [deployJobs, draftC, source] = second.pending.map((approval) => approval.approvalId);
    await decide(deployApi!, 'ana', true);
    await decide(deployWeb!, 'bob', true);
    await decide(deployJobs!, 'ana', true);
    await decide(draftA!, 'bob', true);
    await decide(draftB!, 'ana', true);
    await decide(draftC!, 'bob', true);
    await decide(source!, 'ana', false);
    await Promise.all([first.handle.result(), second.handle.result()]);
    expect(stack.runs.filter((run) => run.tool === 'deleteFile').map((run) => run.input)).not.toContainEqual({
      path: 'src/app.ts',
    });

    // Visibility lags a little behind the turns' ends.
    const response = await waitFor(
      () => stack.gateway.call('GET', '/v1/approvals/suggestions?since=1h&minApprovals=3', { as: 'auditor' }),
      (answer) => answer.status !== 200 || answer.body.turnsRead === 2,
    );
    expect(response.status).toBe(200);
    const answer = response.body;
    expect(answer).toMatchObject({
      turnsRead: 2,
      truncated: false,
      unansweredTurns: 0,
      thresholds: { minApprovals: 3, minPeople: 2 },
    });
    expect(answer.suggestions.map((suggestion: { id: string }) => suggestion.id)).toEqual([
      'deleteFile:path:path-under',
      'deploy',
    ]);
    const [drafts, deploy] = answer.suggestions;
    expect(drafts).toMatchObject({
      tool: 'deleteFile',
      pattern: { type: 'path-under', argument: 'path', folder: 'drafts' },
      evidence: {
        approved: 3,
        people: [
          { approver: 'bob', approvals: 2 },
          { approver: 'ana', approvals: 1 },
        ],
        medianSecondsToDecide: expect.any(Number),
        totalSecondsToDecide: expect.any(Number),
        notApprovedOutside: 1,
      },
      grant: {
        tools: ['deleteFile'],
        scope: { type: 'everyone' },
        for: '7d',
        constraints: [{ type: 'path-under', argument: 'path', folder: 'drafts' }],
      },
    });
    expect(drafts.summary).toMatch(
      /^deleteFile with path under drafts\/: approved 3 of 3 times by 2 people \(bob, ana\)/,
    );
    expect(deploy).toMatchObject({
      tool: 'deploy',
      evidence: {
        approved: 3,
        people: [
          { approver: 'ana', approvals: 2 },
          { approver: 'bob', approvals: 1 },
        ],
      },
      grant: { tools: ['deploy'], scope: { type: 'everyone' }, for: '7d' },
    });
    expect(deploy.pattern).toBeUndefined();
    // deploy is a defined tool: the policy file cannot stop it asking, and the answer says so instead of a snippet.
    expect(deploy.policy).toBeUndefined();
    expect(deploy.policyNote).toMatch(/create the grant/);

    // The default threshold (5 approvals) holds none of them; nothing was changed by asking.
    const strict = await stack.gateway.call('GET', '/v1/approvals/suggestions?since=1h', { as: 'auditor' });
    expect(strict.body.suggestions).toEqual([]);
  }, 60_000);

  it('is described in the OpenAPI document', async () => {
    const document = await stack.gateway.call('GET', '/openapi.json');
    const operation = document.body.paths['/v1/approvals/suggestions'].get;
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      'since',
      'limit',
      'minApprovals',
      'minPeople',
    ]);
    expect(document.body.components.schemas.ApprovalSuggestions.properties.suggestions).toBeDefined();
  });

  it('needs audit:read, as GET /v1/approvals/stats does', async () => {
    expectProblem(await stack.gateway.call('GET', '/v1/approvals/suggestions', { as: 'bob' }), 403, 'forbidden');
    expectProblem(await stack.gateway.call('GET', '/v1/approvals/suggestions', { token: null }), 401, 'unauthorized');
  });

  it('refuses one person as enough, thresholds out of range and unknown parameters with 400', async () => {
    for (const query of ['minPeople=1', 'minPeople=21', 'minApprovals=0', 'minApprovals=x', 'since=soon', 'tool=x']) {
      expectProblem(
        await stack.gateway.call('GET', `/v1/approvals/suggestions?${query}`, { as: 'auditor' }),
        400,
        'invalid-request',
      );
    }
  });
});
