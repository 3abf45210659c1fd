import { createTestEnvironment, uniqueMarker, waitFor, type TestEnvironment } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { auditSince, expectProblem, startGateway, type RunningGateway } from '../gateway-fixture';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools, policy: { tools: { deploy: { approvers: ['ana'] } } } });
  gateway = await startGateway(environment.tollgate);
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
});
afterEach(async () => {
  const { body } = await gateway.call('GET', '/v1/grants');
  for (const grant of body.grants ?? []) {
    if (!grant.revokedAt) await gateway.call('DELETE', `/v1/grants/${grant.grantId}`);
  }
});

/** `bob` starts a turn over REST whose model deletes each path in turn, one step each; resolves at the first ask. */
async function bobDeletes(paths: string[]) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    ...paths.map((path, index) => ({
      toolCalls: [{ id: `${marker}-${index}`, name: 'deleteFile', arguments: { path } }],
    })),
    { text: 'finished' },
  );
  const started = await gateway.call('POST', '/v1/turns', {
    as: 'bob',
    body: { messages: [{ role: 'user', content: `${marker} tidy up` }] },
  });
  const { workflowId } = started.body as { workflowId: string };
  return { marker, workflowId, firstAsk: await nextAsk(workflowId) };
}

async function nextAsk(workflowId: string, after?: string): Promise<string> {
  const listed = await waitFor(
    () => gateway.call('GET', `/v1/approvals?workflowId=${encodeURIComponent(workflowId)}`),
    (response) => response.body.approvals?.length === 1 && response.body.approvals[0].approvalId !== after,
  );
  return listed.body.approvals[0].approvalId as string;
}

async function turnState(workflowId: string) {
  return waitFor(
    () => gateway.call('GET', `/v1/turns/${encodeURIComponent(workflowId)}`, { as: 'bob' }),
    (response) => response.body.status === 'completed',
  );
}

describe('standing grants over REST', () => {
  it('approves and allows: later calls of the tool in the conversation run without asking, until revoked', async () => {
    const { marker, workflowId, firstAsk } = await bobDeletes(['a.txt', 'b.txt']);
    const decided = await gateway.call('POST', `/v1/approvals/${firstAsk}/decision`, {
      as: 'ana',
      body: { approved: true, allow: { for: '1h', uses: 5 } },
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({
      decision: 'approved',
      approver: 'ana',
      allowed: {
        tools: ['deleteFile'],
        scope: { type: 'conversation', conversationId: workflowId },
        uses: 5,
        grantedBy: 'ana',
        fromApprovalId: firstAsk,
      },
    });
    const { grantId } = decided.body.allowed as { grantId: string };
    const finished = await turnState(workflowId);
    expect(runs.filter((run) => run.toolCallId.startsWith(marker))).toHaveLength(2);
    expect(finished.body.audit[1]).toMatchObject({
      via: 'grant',
      approver: 'ana',
      grant: { grantId, grantedBy: 'ana' },
    });

    const listed = await gateway.call('GET', '/v1/grants');
    expect(listed.body.grants.find((grant: { grantId: string }) => grant.grantId === grantId)).toMatchObject({
      used: 1,
      calls: [expect.objectContaining({ workflowId, toolName: 'deleteFile' })],
    });
    const revoked = await gateway.call('DELETE', `/v1/grants/${grantId}`, { as: 'bob' });
    expect(revoked.body).toMatchObject({ grantId, revokedBy: 'bob' });
    expectProblem(await gateway.call('DELETE', '/v1/grants/grant-00000000'), 404, 'unknown-grant');

    const audit = await gateway.audit.read({});
    expect(audit.filter((attempt) => attempt.grant?.grantId === grantId)).toEqual([
      expect.objectContaining({
        approver: 'ana',
        outcome: 'recorded',
        grant: expect.objectContaining({ action: 'grant' }),
      }),
      expect.objectContaining({ approver: 'bob', outcome: 'recorded', grant: { action: 'revoke', grantId } }),
    ]);
  });

  it('gives a grant on its own, for a requester, and the next turn of theirs runs without asking', async () => {
    const given = await gateway.call('POST', '/v1/grants', {
      as: 'ana',
      body: {
        tools: ['deleteFile'],
        scope: { type: 'requester', requester: 'bob' },
        uses: 1,
        constraints: [{ type: 'path-under', argument: 'path', folder: 'tmp' }],
        reason: 'cleaning tmp today',
      },
    });
    expect(given.status).toBe(201);
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-0`, name: 'deleteFile', arguments: { path: 'tmp/x' } }] },
      { text: 'finished' },
    );
    const started = await gateway.call('POST', '/v1/turns', {
      as: 'bob',
      body: { messages: [{ role: 'user', content: `${marker} tidy` }] },
    });
    const finished = await turnState(started.body.workflowId);
    expect(finished.body.audit[0]).toMatchObject({ via: 'grant', grant: { grantId: given.body.grantId } });
  });

  it('refuses what the rules do not allow, with a clear problem and an audit record, leaving the approval waiting', async () => {
    const { workflowId, firstAsk } = await bobDeletes(['c.txt']);
    const self = await gateway.call('POST', `/v1/approvals/${firstAsk}/decision`, {
      as: 'bob',
      body: { approved: true, allow: { uses: 3 } },
    });
    expectProblem(self, 403, 'forbidden');
    expect(self.body.detail).toBe('"bob" may not grant for their own requests; someone else must.');
    expect(await nextAsk(workflowId)).toBe(firstAsk);

    const unfit = await gateway.call('POST', '/v1/grants', {
      as: 'ana',
      body: {
        tools: ['deleteFile'],
        scope: { type: 'everyone' },
        uses: 3,
        constraints: [{ type: 'at-most', argument: 'path', max: 2 }],
      },
    });
    expectProblem(unfit, 403, 'forbidden');
    expect(unfit.body.detail).toMatch(/needs a number, but argument "path" of tool "deleteFile" is string/);
    const notApprover = await gateway.call('POST', '/v1/grants', {
      as: 'eve',
      body: { tools: ['deploy'], scope: { type: 'everyone' }, for: '1h' },
    });
    expectProblem(notApprover, 403, 'forbidden');
    expect(notApprover.body.detail).toMatch(/"eve" may not decide calls of deploy/);
    expectProblem(
      await gateway.call('POST', '/v1/grants', {
        as: 'reader',
        body: { tools: ['deleteFile'], scope: { type: 'everyone' }, uses: 1 },
      }),
      403,
      'forbidden',
    );
    expectProblem(
      await gateway.call('POST', `/v1/approvals/${firstAsk}/decision`, {
        as: 'ana',
        body: { approved: false, allow: { uses: 1 } },
      }),
      400,
      'invalid-request',
    );
    expectProblem(
      await gateway.call('POST', '/v1/grants', {
        as: 'ana',
        body: { tools: ['deleteFile'], scope: { type: 'everyone' } },
      }),
      400,
      'invalid-request',
    );

    const refused = (await gateway.audit.read({})).filter(
      (attempt) => attempt.grant !== undefined && attempt.outcome === 'refused',
    );
    expect(refused.map((attempt) => [attempt.approver, attempt.refusal?.detail])).toEqual(
      expect.arrayContaining([
        ['bob', '"bob" may not grant for their own requests; someone else must.'],
        ['ana', expect.stringMatching(/needs a number/)],
        ['eve', expect.stringMatching(/may not decide calls of deploy/)],
      ]),
    );
  });

  it('keeps grants and revocations refused before the ledger in GET /v1/audit, with who, which grant and why', async () => {
    const since = new Date();
    const body = { tools: ['deleteFile'], scope: { type: 'everyone' }, uses: 1 };
    expectProblem(await gateway.call('POST', '/v1/grants', { token: null, body }), 401, 'unauthorized');
    expectProblem(await gateway.call('POST', '/v1/grants', { as: 'reader', body }), 403, 'forbidden');
    expectProblem(await gateway.call('POST', '/v1/grants', { as: 'ana', body: '{"tools": ' }), 400, 'malformed-json');
    expectProblem(await gateway.call('DELETE', '/v1/grants/grant-0123abcd', { as: 'reader' }), 403, 'forbidden');
    expectProblem(
      await gateway.call('DELETE', '/v1/grants/grant-0123abcd', { token: 'not-a-token' }),
      401,
      'unauthorized',
    );

    const attempts = (await auditSince(gateway, since)).filter((attempt) => attempt.grant !== undefined);
    expect(attempts).toEqual([
      expect.objectContaining({
        approver: '(unauthenticated)',
        channel: 'rest',
        outcome: 'refused',
        from: expect.any(String),
        grant: { action: 'grant' },
        refusal: expect.objectContaining({ code: 'unauthorized' }),
      }),
      expect.objectContaining({
        approver: 'reader',
        identity: 'token:reader',
        grant: { action: 'grant' },
        refusal: { code: 'forbidden', detail: 'This token lacks the scope approvals:decide.' },
      }),
      expect.objectContaining({ approver: 'ana', refusal: expect.objectContaining({ code: 'malformed-json' }) }),
      expect.objectContaining({
        approver: 'reader',
        approvalId: 'grant:grant-0123abcd',
        approved: false,
        grant: { action: 'revoke', grantId: 'grant-0123abcd' },
        refusal: expect.objectContaining({ code: 'forbidden' }),
      }),
      expect.objectContaining({
        approver: '(unauthenticated)',
        approvalId: 'grant:grant-0123abcd',
        grant: { action: 'revoke', grantId: 'grant-0123abcd' },
        refusal: expect.objectContaining({ code: 'unauthorized' }),
      }),
    ]);
    // The token tried is never kept.
    expect(JSON.stringify(attempts)).not.toContain('not-a-token');
    const grants = (await gateway.call('GET', '/v1/grants')).body.grants as Array<{ revokedAt?: string }>;
    expect(grants.filter((grant) => grant.revokedAt === undefined)).toEqual([]);
  });

  it('keeps a flood of unauthenticated decisions to ten lines a minute, the rest counted, and decides nothing', async () => {
    const { workflowId, firstAsk } = await bobDeletes(['flood.txt']);
    const since = new Date();
    const path = `/v1/approvals/${encodeURIComponent(firstAsk)}/decision`;
    for (let index = 0; index < 40; index++) {
      expectProblem(await gateway.call('POST', path, { token: null, body: { approved: true } }), 401, 'unauthorized');
    }
    const attempts = (await auditSince(gateway, since)).filter((attempt) => attempt.refusal?.code === 'unauthorized');
    expect(attempts.length).toBeLessThanOrEqual(10);
    expect(attempts[0]).toEqual(
      expect.objectContaining({
        approver: '(unauthenticated)',
        channel: 'rest',
        approvalId: firstAsk,
        outcome: 'refused',
      }),
    );
    expect(await nextAsk(workflowId)).toBe(firstAsk);
    await gateway.call('POST', path, { as: 'ana', body: { approved: false } });
  });

  it('describes the grant routes in the OpenAPI document', async () => {
    const { body } = await gateway.call('GET', '/openapi.json');
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/v1/grants', '/v1/grants/{grantId}']));
    expect(
      body.paths['/v1/approvals/{approvalId}/decision'].post.requestBody.content['application/json'].schema.properties
        .allow,
    ).toBeDefined();
  });
});
