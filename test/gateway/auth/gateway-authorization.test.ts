import type { ToolApprovalDecision } from '../../../src/protocol';
import { TollgateClient } from '../../../src/client';
import { generateDecisionKeyPair, parseDecisionPrivateKey } from '../../../src/gateway/decisions/decision-signing-key';
import { verifyBoundDecision } from '../../../src/protocol/verify-decision-signature';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { expectProblem, startGateway, type RunningGateway } from '../gateway-fixture';

const { tools, runs } = createTestTools();
const keys = generateDecisionKeyPair();
let environment: TestEnvironment;
let gateway: RunningGateway;
/** Every decision the gateway sent to Temporal, as the workflow received it. */
const forwarded: ToolApprovalDecision[] = [];

/** The real client, recording what it forwards. */
class RecordingClient extends TollgateClient {
  override async decideMany(workflowId: string, responses: ToolApprovalDecision[]) {
    forwarded.push(...responses);
    return super.decideMany(workflowId, responses);
  }
}

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
  // The gateway's own deadlines for reading a turn (10 s): on a busy machine, a query a worker answers by replaying a
  // closed turn can take longer than a second or two. Only the test of a turn no worker serves shortens them, on a
  // gateway of its own (below).
  gateway = await startGateway(new RecordingClient(environment.client, environment.taskQueue), {
    signingKey: { keyId: 'test-key', privateKey: parseDecisionPrivateKey(keys.privateKeyPem) },
  });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
});

/** Starts a turn over REST as `as`, whose model asks to delete a file, and waits for the approval. */
async function startTurn(as: 'ana' | 'bob' | 'eve' | 'robot', extra: object = {}) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'notes.txt' } }] },
    { text: 'done' },
  );
  const started = await gateway.call('POST', '/v1/turns', {
    as,
    body: { messages: [{ role: 'user', content: `${marker} tidy up` }], ...extra },
  });
  expect(started.status).toBe(201);
  const workflowId = started.body.workflowId as string;
  return { marker, workflowId, handle: environment.tollgate.turn(workflowId) };
}

async function waitingTurn(as: 'ana' | 'bob' | 'eve' | 'robot', extra: object = {}) {
  const turn = await startTurn(as, extra);
  const [approval] = await waitForPending(turn.handle, 1);
  return { ...turn, approvalId: approval!.approvalId };
}

describe('gateway token scopes', () => {
  it('refuses autoApprove without turns:autonomous, and runs nothing', async () => {
    const marker = uniqueMarker();
    const refused = await gateway.call('POST', '/v1/turns', {
      as: 'ana',
      body: { messages: [{ role: 'user', content: `${marker} rm -rf` }], autoApprove: true },
    });
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.detail).toMatch(/turns:autonomous/);
    expect(runs.filter((run) => run.toolCallId.startsWith(marker))).toEqual([]);
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'x' } }] },
      { text: 'done' },
    );
    const allowed = await gateway.call('POST', '/v1/turns', {
      as: 'robot',
      body: { messages: [{ role: 'user', content: `${marker} rm x` }], autoApprove: true },
    });
    expect(allowed.status).toBe(201);
  });

  it('refuses each route to a token without its scope', async () => {
    expectProblem(await gateway.call('GET', '/v1/audit', { as: 'ana' }), 403, 'forbidden');
    expect((await gateway.call('GET', '/v1/audit', { as: 'auditor' })).status).toBe(200);
    expectProblem(
      await gateway.call('POST', '/v1/turns', { as: 'auditor', body: { messages: [{ role: 'user', content: 'hi' }] } }),
      403,
      'forbidden',
    );
    const { approvalId, workflowId } = await waitingTurn('ana');
    expectProblem(
      await gateway.call('POST', `/v1/approvals/${approvalId}/decision`, { as: 'auditor', body: { approved: true } }),
      403,
      'forbidden',
    );
    expectProblem(
      await gateway.call('POST', `/v1/turns/${workflowId}/decisions`, {
        as: 'reader',
        body: { responses: [{ approvalId, approved: true }] },
      }),
      403,
      'forbidden',
    );
    expect(await environment.tollgate.pending({ workflowId })).toHaveLength(1);
    // Both refused decisions are in the audit, with who tried and why, as a refusal through messages is.
    const audit = await gateway.call('GET', `/v1/audit?approvalId=${encodeURIComponent(approvalId)}`, {
      as: 'auditor',
    });
    expect(audit.status).toBe(200);
    const attempts = (audit.body as { attempts: Array<Record<string, unknown>> }).attempts;
    expect(attempts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          approver: 'auditor',
          identity: 'token:auditor',
          channel: 'rest',
          approvalId,
          approved: true,
          outcome: 'refused',
          refusal: { code: 'forbidden', detail: 'This token lacks the scope approvals:decide.' },
        }),
        expect.objectContaining({
          approver: 'reader',
          channel: 'rest',
          approvalId,
          workflowId,
          outcome: 'refused',
          refusal: expect.objectContaining({ code: 'forbidden' }),
        }),
      ]),
    );
  });

  it('sets the requester from the token: a requester field is refused', async () => {
    const refused = await gateway.call('POST', '/v1/turns', {
      as: 'ana',
      body: { messages: [{ role: 'user', content: 'hi' }], requester: 'bob' },
    });
    expectProblem(refused, 400, 'invalid-request');
  });
});

describe('gateway tenancy', () => {
  it("shows a turn to the token that started it and to read-all, and no one else's", async () => {
    const { workflowId } = await waitingTurn('ana', { approvalRules: { approvers: ['bob'] } });
    expect((await gateway.call('GET', `/v1/turns/${workflowId}`, { as: 'ana' })).status).toBe(200);
    expect((await gateway.call('GET', `/v1/turns/${workflowId}`, { as: 'auditor' })).status).toBe(200);
    // eve neither started it nor may decide it: the turn does not exist as far as she can tell.
    expectProblem(await gateway.call('GET', `/v1/turns/${workflowId}`, { as: 'eve' }), 404, 'unknown-turn');
    expectProblem(await gateway.call('GET', `/v1/turns/${workflowId}`, { as: 'reader' }), 404, 'unknown-turn');
  });

  it('lists to each token the approvals of its own turns and those it may decide, no others', async () => {
    const mine = await waitingTurn('eve', { approvalRules: { approvers: ['bob'] } });
    const listed = (as: 'ana' | 'bob' | 'eve' | 'auditor') =>
      waitFor(
        () => gateway.call('GET', '/v1/approvals', { as }),
        (response) => response.status === 200,
      ).then((response) => (response.body.approvals as Array<{ approvalId: string }>).map((a) => a.approvalId));
    await waitFor(
      () => listed('auditor'),
      (ids) => ids.includes(mine.approvalId),
    );
    expect(await listed('eve')).toContain(mine.approvalId);
    expect(await listed('bob')).toContain(mine.approvalId);
    expect(await listed('ana')).not.toContain(mine.approvalId);
    expectProblem(
      await gateway.call('GET', `/v1/approvals/${mine.approvalId}`, { as: 'ana' }),
      404,
      'unknown-approval',
    );
    expect((await gateway.call('GET', `/v1/approvals/${mine.approvalId}`, { as: 'bob' })).body).toMatchObject({
      status: 'pending',
    });
  });
});

describe('gateway decisions', () => {
  it('signs every decision it forwards, with the person from the token and the key the worker trusts', async () => {
    const { approvalId, handle } = await waitingTurn('eve');
    const decided = await gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'bob',
      body: { approved: true, reason: 'fine' },
    });
    expect(decided.status).toBe(200);
    await handle.result();
    const sent = forwarded.filter((decision) => decision.approvalId === approvalId);
    expect(sent).toEqual([
      expect.objectContaining({
        approvalId,
        approved: true,
        approver: 'bob',
        reason: 'fine',
        signature: expect.any(Object),
      }),
    ]);
    const [approval] = (await environment.tollgate.state(handle.workflowId)).audit;
    const binding = {
      workflowId: handle.workflowId,
      approvalId,
      toolName: 'deleteFile',
      argumentsDigest: approval!.inputDigest as string,
    };
    const window = { notBefore: new Date(Date.now() - 60_000), notAfter: new Date() };
    expect(verifyBoundDecision(sent[0]!, binding, { 'test-key': keys.publicKey }, window)).toEqual({ valid: true });
    // Bound to this turn: the same signature says nothing about any other.
    expect(
      verifyBoundDecision(sent[0]!, { ...binding, workflowId: 'turn-other' }, { 'test-key': keys.publicKey }, window)
        .valid,
    ).toBe(false);
  });

  it('answers 403, not "already decided", to someone not allowed on an approval already decided', async () => {
    const { approvalId, handle } = await waitingTurn('eve', { approvalRules: { approvers: ['ana'] } });
    expect(
      (await gateway.call('POST', `/v1/approvals/${approvalId}/decision`, { as: 'ana', body: { approved: true } }))
        .status,
    ).toBe(200);
    await handle.result();
    for (const approved of [true, false]) {
      const late = await gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
        as: 'bob',
        body: { approved },
      });
      expectProblem(late, 403, 'forbidden');
    }
    expect(gateway.audit.list({ approvalId }).filter((attempt) => attempt.approver === 'bob')).toEqual([
      expect.objectContaining({ outcome: 'refused', refusal: expect.objectContaining({ code: 'forbidden' }) }),
      expect.objectContaining({ outcome: 'refused', refusal: expect.objectContaining({ code: 'forbidden' }) }),
    ]);
  });

  it('neutralises a right-to-left override in a reason before it reaches the audit and the turn', async () => {
    const { approvalId, handle } = await waitingTurn('eve');
    await gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'bob',
      body: { approved: false, reason: 'looks \u202Edevorppa' },
    });
    const result = await handle.result();
    expect(result.audit[0]?.reason).toBe('looks <U+202E>devorppa');
    expect(gateway.audit.list({ approvalId })[0]?.reason).toBe('looks <U+202E>devorppa');
  });
});

describe('gateway input edges', () => {
  it('answers 400 problems for approvalIds with a NUL byte, a backslash or over 1,000 characters', async () => {
    for (const id of ['a%00b', 'a%5Cb', 'x'.repeat(1001)]) {
      expectProblem(await gateway.call('GET', `/v1/approvals/${id}`), 400, 'invalid-request');
      expectProblem(
        await gateway.call('POST', `/v1/approvals/${id}/decision`, { body: { approved: true } }),
        400,
        'invalid-request',
      );
    }
    // 1,000 characters is a well-formed id, just not one that exists.
    expectProblem(await gateway.call('GET', `/v1/approvals/${'x'.repeat(1000)}`), 404, 'unknown-approval');
  });

  it('answers a URL that does not decode with a problem+json 400', async () => {
    expectProblem(await gateway.call('GET', '/v1/approvals/%E0%A4%A'), 400, 'invalid-request');
  });
});

describe('gateway without a worker', () => {
  it('answers 503 for a turn no worker serves, and the inbox answers without it, counting the turns that did not', async () => {
    const { workflowId } = await waitingTurn('ana');
    await waitFor(
      () => gateway.call('GET', '/v1/approvals', { as: 'auditor' }),
      (response) =>
        response.body.approvals?.some((approval: { workflowId: string }) => approval.workflowId === workflowId),
    );
    // Short deadlines, so the test does not wait the default 10 s: a turn no worker serves never answers, so they
    // pass however busy the machine is.
    const impatient = await startGateway(environment.tollgate, {
      readTimeoutMs: 1_500,
      listing: { perTurnTimeoutMs: 1_000 },
    });
    await environment.stopWorker();
    try {
      const unanswered = await impatient.call('GET', `/v1/turns/${workflowId}`, { as: 'ana' });
      expectProblem(unanswered, 503, 'unavailable');
      expect(unanswered.headers.get('retry-after')).toBe('5');
      const listed = await impatient.call('GET', '/v1/approvals', { as: 'auditor' });
      expect(listed.status).toBe(200);
      expect(listed.body.unansweredTurns).toBeGreaterThanOrEqual(1);
    } finally {
      await impatient.close();
      await environment.startWorker();
    }
  });
});
