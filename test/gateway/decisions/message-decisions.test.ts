import { generateDecisionKeyPair, parseDecisionPrivateKey } from '../../../src/gateway/decisions/decision-signing-key';
import type { ModelMessage } from '../../../src/protocol';
import { createTestEnvironment, uniqueMarker, type TestEnvironment } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { expectProblem, startGateway, type RunningGateway } from '../gateway-fixture';

const { tools, runs } = createTestTools();
const keys = generateDecisionKeyPair();

/**
 * A halted turn continued through `POST /v1/turns` with a decision inside its messages, in the two configurations a
 * team runs: gateway tokens only (as docker-compose runs it: no signing keys, no policy file), and with signing keys.
 */
describe.each([
  { configuration: 'without signing keys', signed: false },
  { configuration: 'with signing keys', signed: true },
])('decisions inside the messages of a new turn, $configuration', ({ signed }) => {
  let environment: TestEnvironment;
  let gateway: RunningGateway;
  beforeAll(async () => {
    environment = await createTestEnvironment({
      tools,
      ...(signed && { policy: { decisions: { trustedKeys: { 'test-key': keys.publicKey } } } }),
    });
    gateway = await startGateway(environment.tollgate, {
      ...(signed && { signingKey: { keyId: 'test-key', privateKey: parseDecisionPrivateKey(keys.privateKeyPem) } }),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await environment?.close();
  });

  /** A turn started by `robot` (start and read only) that halts on `deleteFile`, read back as its caller would. */
  async function haltedTurn() {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'prod.db' } }] },
      { text: 'deleted' },
    );
    const prompt: ModelMessage = { role: 'user', content: `${marker} clean up` };
    const started = await gateway.call('POST', '/v1/turns', {
      as: 'robot',
      body: { messages: [prompt], approvalWait: 'halt' },
    });
    expect(started.status).toBe(201);
    await environment.tollgate.turn(started.body.workflowId).result();
    const turn = await gateway.call('GET', `/v1/turns/${started.body.workflowId}`, { as: 'robot' });
    expect(turn.body.status).toBe('awaiting-approval');
    const [request] = turn.body.pending as Array<{ approvalId: string }>;
    /** The continuation a caller sends: the history so far and a decision on the request. */
    const continuation = (tollgate?: Record<string, unknown>): { messages: ModelMessage[]; approvalWait: 'halt' } => ({
      messages: [
        prompt,
        ...(turn.body.messages as ModelMessage[]),
        {
          role: 'tool',
          content: [
            {
              type: 'tool-approval-response',
              approvalId: request!.approvalId,
              approved: true,
              ...(tollgate && { providerOptions: { tollgate: tollgate as never } }),
            },
          ],
        },
      ],
      approvalWait: 'halt',
    });
    return { marker, approvalId: request!.approvalId, continuation };
  }

  it('refuses a decision from a token that may only start turns, with or without an approver named, and audits it', async () => {
    const { marker, approvalId, continuation } = await haltedTurn();
    for (const body of [continuation(), continuation({ approver: 'ana' })]) {
      const refused = await gateway.call('POST', '/v1/turns', { as: 'robot', body });
      expectProblem(refused, 403, 'forbidden');
      expect(refused.body.detail).toMatch(/tool-approval-response.*approvals:decide/);
    }
    expect(gateway.audit.list({ approvalId })).toEqual([
      expect.objectContaining({ approver: 'robot', channel: 'message', outcome: 'refused' }),
      expect.objectContaining({ approver: 'robot', channel: 'message', outcome: 'refused' }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
  });

  it('audits a continuation carrying a decision from a token that may not start turns', async () => {
    const { marker, approvalId, continuation } = await haltedTurn();
    const auditor = await gateway.call('POST', '/v1/turns', { as: 'auditor', body: continuation() });
    expect(auditor.status).toBe(403);
    expect(gateway.audit.list({ approvalId })).toEqual([
      expect.objectContaining({
        approver: 'auditor',
        channel: 'message',
        outcome: 'refused',
        refusal: { code: 'forbidden', detail: 'This token lacks the scope turns:start.' },
      }),
    ]);
    // A turn started without a decision and refused is no decision refused: nothing more is kept.
    const kept = gateway.audit.list({}).length;
    const plain = await gateway.call('POST', '/v1/turns', {
      as: 'auditor',
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(plain.status).toBe(403);
    expect(gateway.audit.list({})).toHaveLength(kept);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
  });

  it('refuses a message that names someone else as the approver, even from a token that may decide', async () => {
    const { marker, approvalId, continuation } = await haltedTurn();
    const refused = await gateway.call('POST', '/v1/turns', { as: 'ana', body: continuation({ approver: 'bob' }) });
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.detail).toMatch(/whoever the token belongs to \("ana"\).*"bob"/);
    expect(gateway.audit.list({ approvalId })).toEqual([
      expect.objectContaining({ approver: 'ana', channel: 'message', outcome: 'refused' }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
  });

  it('runs the call on a decision by a token that may decide, recording that token as the approver', async () => {
    const { marker, approvalId, continuation } = await haltedTurn();
    const started = await gateway.call('POST', '/v1/turns', { as: 'ana', body: continuation({ approver: 'ana' }) });
    expect(started.status).toBe(201);
    const result = await environment.tollgate.turn(started.body.workflowId).result();
    expect(result.status).toBe('completed');
    expect(result.audit).toEqual([expect.objectContaining({ decision: 'approved', approver: 'ana', via: 'message' })]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    expect(gateway.audit.list({ approvalId })).toEqual([
      expect.objectContaining({
        approver: 'ana',
        channel: 'message',
        workflowId: started.body.workflowId,
        outcome: 'forwarded',
      }),
    ]);
    // The vouched messages, read from the turn's history and sent again by a token that may only start turns,
    // decide nothing.
    const vouched = await startedMessages(environment, started.body.workflowId);
    expect(JSON.stringify(vouched)).toContain('"approver":"ana"');
    const again = await gateway.call('POST', '/v1/turns', { as: 'robot', body: { messages: vouched } });
    expectProblem(again, 403, 'forbidden');
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
  });
});

/** The messages a turn was started with, as anyone who can read its history sees them. */
async function startedMessages(environment: TestEnvironment, workflowId: string): Promise<ModelMessage[]> {
  const history = await environment.tollgate.turn(workflowId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const input = JSON.parse(Buffer.from(payload!.data!).toString('utf8')) as { messages: ModelMessage[] };
  return input.messages;
}
