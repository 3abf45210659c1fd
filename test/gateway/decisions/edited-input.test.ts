import { TollgateClient } from '../../../src/client';
import { generateDecisionKeyPair, parseDecisionPrivateKey } from '../../../src/gateway/decisions/decision-signing-key';
import { signDecision } from '../../../src/gateway/decisions/sign-decision';
import { modelMessageSchema } from '../../../src/protocol';
import { agentTurnEventsQuery } from '../../../src/workflows/definitions';
import type { ModelMessage, ToolApprovalDecision, ToolResultPart } from '../../../src/protocol';
import { createTestEnvironment, uniqueMarker, waitFor, type TestEnvironment } from '../../support/test-environment';
import { createTestTools, type ToolRun } from '../../support/test-tools';
import { expectProblem, startGateway, type RunningGateway } from '../gateway-fixture';

// The operator lets ana (and only ana) approve deleteFile with changed arguments; anyone may approve it as asked.
const policy = { tools: { deleteFile: { editors: ['ana'] } } };

interface Setup {
  environment: TestEnvironment;
  gateway: RunningGateway;
  runs: ToolRun[];
  /** Every decision the gateway sent to Temporal, as the workflow received it. */
  forwarded: ToolApprovalDecision[];
}

async function setUp(signed: boolean): Promise<Setup> {
  const { tools, runs } = createTestTools();
  const keys = generateDecisionKeyPair();
  const forwarded: ToolApprovalDecision[] = [];
  const environment = await createTestEnvironment({
    tools,
    policy: signed ? { ...policy, decisions: { trustedKeys: { 'edit-key': keys.publicKey } } } : policy,
  });
  class RecordingClient extends TollgateClient {
    override async decideMany(workflowId: string, responses: ToolApprovalDecision[]) {
      forwarded.push(...responses);
      return super.decideMany(workflowId, responses);
    }
  }
  const gateway = await startGateway(new RecordingClient(environment.client, environment.taskQueue), {
    ...(signed && { signingKey: { keyId: 'edit-key', privateKey: parseDecisionPrivateKey(keys.privateKeyPem) } }),
  });
  return { environment, gateway, runs, forwarded, ...(signed && { keys }) };
}

/** Starts a turn as ana whose model asks to delete `notes.txt`, and waits for the approval. */
async function waitingTurn(setup: Setup) {
  const marker = uniqueMarker();
  setup.environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'notes.txt' } }] },
    { text: 'done' },
  );
  const started = await setup.gateway.call('POST', '/v1/turns', {
    body: { messages: [{ role: 'user', content: `${marker} tidy up` }] },
  });
  expect(started.status).toBe(201);
  const workflowId = started.body.workflowId as string;
  const listed = await waitFor(
    () => setup.gateway.call('GET', `/v1/approvals?workflowId=${encodeURIComponent(workflowId)}`),
    (response) => response.body.approvals?.length === 1,
  );
  const approval = listed.body.approvals[0] as { approvalId: string; editors?: string[]; inputDigest: string };
  return { marker, workflowId, approval, approvalId: approval.approvalId };
}

async function finished(setup: Setup, workflowId: string) {
  const response = await waitFor(
    () => setup.gateway.call('GET', `/v1/turns/${encodeURIComponent(workflowId)}`),
    (current) => current.body.status === 'completed',
  );
  return response.body as { messages: ModelMessage[]; audit: Array<Record<string, unknown>> };
}

function resultOf(messages: ModelMessage[]): ToolResultPart | undefined {
  return messages
    .flatMap((message) => (message.role === 'tool' ? message.content : []))
    .find((part): part is ToolResultPart => part.type === 'tool-result');
}

async function stillPending(setup: Setup, approvalId: string) {
  const shown = await setup.gateway.call('GET', `/v1/approvals/${approvalId}`);
  expect(shown.body).toMatchObject({ status: 'pending', approvalId });
}

describe.each([
  ['a worker that takes unsigned decisions', false],
  ['a worker that accepts only signed decisions', true],
])('editing arguments on approval, on %s', (_name, signed) => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await setUp(signed);
  });
  afterAll(async () => {
    await setup?.gateway.close();
    await setup?.environment.close();
  });

  it('runs the approved call with the edited input, tells the model so, and keeps both inputs and the editor', async () => {
    const { marker, workflowId, approval, approvalId } = await waitingTurn(setup);
    expect(approval.editors).toEqual(['ana']);

    const decided = await setup.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      body: { approved: true, reason: 'wrong file', input: { path: 'drafts/notes.txt' } },
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({
      approvalId,
      decision: 'approved',
      approver: 'ana',
      input: { path: 'notes.txt' },
      editedInput: { path: 'drafts/notes.txt' },
      editedBy: 'ana',
    });

    const state = await finished(setup, workflowId);
    // The tool ran once, with the approver's input, never the model's.
    expect(setup.runs.filter((run) => run.toolCallId === `${marker}-1`).map((run) => run.input)).toEqual([
      { path: 'drafts/notes.txt' },
    ]);
    // The history keeps the model's own call and a result that says what ran instead.
    const call = state.messages
      .flatMap((message) => (message.role === 'assistant' && Array.isArray(message.content) ? message.content : []))
      .find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({ toolName: 'deleteFile', input: { path: 'notes.txt' } });
    const result = resultOf(state.messages);
    expect(result?.output).toEqual({
      type: 'text',
      value: expect.stringContaining('{"path":"drafts/notes.txt"}'),
    });
    expect(JSON.stringify(result?.output)).toMatch(/Approver \\"ana\\" changed the arguments/);
    // Still a transcript the AI SDK takes.
    for (const message of state.messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
    // The model was told, in the tool result it read.
    const told = JSON.stringify(setup.environment.model.requestsFor(marker)[1]?.messages.at(-1));
    expect(told).toContain('changed the arguments of this call');
    expect(told).toContain('drafts/notes.txt');
    // The turn's audit and the gateway's show both inputs and who edited.
    expect(state.audit).toEqual([
      expect.objectContaining({
        approvalId,
        input: { path: 'notes.txt' },
        editedInput: { path: 'drafts/notes.txt' },
        editedBy: 'ana',
        approver: 'ana',
      }),
    ]);
    expect(setup.gateway.audit.list({ approvalId })).toEqual([
      expect.objectContaining({ approver: 'ana', outcome: 'recorded', editedInput: { path: 'drafts/notes.txt' } }),
    ]);
    // The turn's events say who changed the input, to what.
    const events = await setup.environment.tollgate.turn(workflowId).query(agentTurnEventsQuery);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'approval-decided',
        approvalId,
        detail: 'approved with input edited by ana: {"path":"drafts/notes.txt"}',
      }),
    );
    if (signed) {
      const sent = setup.forwarded.find((decision) => decision.approvalId === approvalId);
      expect(sent).toMatchObject({ input: { path: 'drafts/notes.txt' }, signature: expect.any(Object) });
    }
  });

  it('refuses an edit from an approver who is not an editor with 403, audited, and changes nothing', async () => {
    const { marker, approvalId } = await waitingTurn(setup);
    const refused = await setup.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'bob',
      body: { approved: true, input: { path: 'other.txt' } },
    });
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.detail).toMatch(/"bob" may not change the input .*only ana may/);
    expect(setup.gateway.audit.list({ approvalId })).toEqual([
      expect.objectContaining({ approver: 'bob', outcome: 'refused', editedInput: { path: 'other.txt' } }),
    ]);
    await stillPending(setup, approvalId);
    expect(setup.runs.filter((run) => run.toolCallId === `${marker}-1`)).toEqual([]);
    // Bob may still approve it as asked.
    const asAsked = await setup.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      as: 'bob',
      body: { approved: true },
    });
    expect(asAsked.body).toMatchObject({ decision: 'approved', approver: 'bob' });
    expect(asAsked.body.editedInput).toBeUndefined();
  });

  it('refuses input that does not fit the tool, naming the problem, and changes nothing', async () => {
    const { marker, approvalId } = await waitingTurn(setup);
    const refused = await setup.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      body: { approved: true, input: { path: 42 } },
    });
    expectProblem(refused, 400, 'invalid-request');
    expect(refused.body.detail).toMatch(/does not fit tool "deleteFile"/);
    expect(refused.body.detail).toMatch(/path/);
    await stillPending(setup, approvalId);
    expect(setup.runs.filter((run) => run.toolCallId === `${marker}-1`)).toEqual([]);
    const withDenial = await setup.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      body: { approved: false, input: { path: 'x' } },
    });
    expectProblem(withDenial, 400, 'invalid-request');
    await stillPending(setup, approvalId);
  });

  it('takes an edit in a batch of decisions on one turn too', async () => {
    const { marker, workflowId, approvalId } = await waitingTurn(setup);
    const decided = await setup.gateway.call('POST', `/v1/turns/${workflowId}/decisions`, {
      body: { responses: [{ approvalId, approved: true, input: { path: 'batch.txt' } }] },
    });
    expect(decided.status).toBe(200);
    expect(decided.body.decisions).toEqual([expect.objectContaining({ editedInput: { path: 'batch.txt' } })]);
    await finished(setup, workflowId);
    expect(setup.runs.filter((run) => run.toolCallId === `${marker}-1`).map((run) => run.input)).toEqual([
      { path: 'batch.txt' },
    ]);
    // The same edit again changes nothing; other arguments are a conflict: the first decision wins.
    const again = await setup.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      body: { approved: true, input: { path: 'batch.txt' } },
    });
    expect(again.status).toBe(200);
    const other = await setup.gateway.call('POST', `/v1/approvals/${approvalId}/decision`, {
      body: { approved: true, input: { path: 'elsewhere.txt' } },
    });
    expectProblem(other, 409, 'conflict');
  });

  it('refuses a decision whose edited input was changed after it was signed', async () => {
    const { marker, workflowId, approval, approvalId } = await waitingTurn(setup);
    const keys = (setup as Setup & { keys?: ReturnType<typeof generateDecisionKeyPair> }).keys;
    const key = keys
      ? { keyId: 'edit-key', privateKey: parseDecisionPrivateKey(keys.privateKeyPem) }
      : { keyId: 'stray-key', privateKey: parseDecisionPrivateKey(generateDecisionKeyPair().privateKeyPem) };
    const good = signDecision(
      { approvalId, approved: true, approver: 'ana', input: { path: 'drafts/notes.txt' } },
      { workflowId, toolName: 'deleteFile', argumentsDigest: approval.inputDigest },
      key,
    );
    const tampered = { ...good, input: { path: '/etc/passwd' } };
    if (signed) {
      await expect(setup.environment.tollgate.decideMany(workflowId, [tampered])).rejects.toMatchObject({
        code: 'forbidden',
        message: expect.stringMatching(/signature does not verify/),
      });
      await stillPending(setup, approvalId);
      expect(setup.runs.filter((run) => run.toolCallId === `${marker}-1`)).toEqual([]);
      const [recorded] = await setup.environment.tollgate.decideMany(workflowId, [good]);
      expect(recorded).toMatchObject({ decision: 'approved', editedInput: { path: 'drafts/notes.txt' } });
      await finished(setup, workflowId);
      expect(setup.runs.filter((run) => run.toolCallId === `${marker}-1`).map((run) => run.input)).toEqual([
        { path: 'drafts/notes.txt' },
      ]);
    } else {
      // Without trusted keys a signature proves nothing and is not checked: the approver's right to edit still is.
      await expect(
        setup.environment.tollgate.decideMany(workflowId, [{ ...tampered, approver: 'bob' }]),
      ).rejects.toMatchObject({ code: 'forbidden' });
      await stillPending(setup, approvalId);
    }
  });
});
