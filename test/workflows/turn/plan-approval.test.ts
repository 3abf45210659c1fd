import { modelMessageSchema } from 'ai';
import type { AgentTurnResult, PendingToolApproval, ToolResultPart } from '../../../src/protocol';
import { pendingToolApprovalsQuery } from '../../../src/workflows/definitions';
import { createTestEnvironment, uniqueMarker, waitFor, type TestEnvironment } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({
    tools,
    planApproval: true,
    // Only ana and bo may decide deletes, only bo and cy deploys: a plan of both is bo's alone to approve.
    policy: { tools: { deleteFile: { approvers: ['ana', 'bo'] }, deploy: { approvers: ['bo', 'cy'] } } },
  });
});
afterAll(async () => {
  await environment?.close();
});

type Handle = Awaited<ReturnType<TestEnvironment['tollgate']['startTurn']>>;

const deleteCall = (id: string, path: string) => ({ id, name: 'deleteFile', arguments: { path } });
const planCall = (id: string, calls: unknown) => ({ id, name: 'proposePlan', arguments: { calls } });
const runsOf = (toolCallId: string) => runs.filter((run) => run.toolCallId === toolCallId);

/** Waits until the call `toolCallId` waits for a person, and returns its approval. */
async function waitingCall(handle: Handle, toolCallId: string): Promise<PendingToolApproval> {
  const pending = await waitFor(
    () => handle.query(pendingToolApprovalsQuery),
    (list) => list.some((approval) => approval.toolCallId === toolCallId),
  );
  return pending.find((approval) => approval.toolCallId === toolCallId) as PendingToolApproval;
}

function toolResults(result: AgentTurnResult): ToolResultPart[] {
  return result.messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.filter((part): part is ToolResultPart => part.type === 'tool-result')
      : [],
  );
}

function expectValidTranscript(result: AgentTurnResult): void {
  for (const message of result.messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
}

describe('plan approval', () => {
  it('runs the calls of an approved plan unasked, once each; an off-plan call and a repeat ask', async () => {
    const marker = uniqueMarker();
    const plan = [
      { toolName: 'deleteFile', input: { path: 'tmp/a' } },
      { toolName: 'deleteFile', input: { path: 'tmp/b' } },
    ];
    environment.model.scriptFor(
      marker,
      { toolCalls: [planCall(`${marker}-plan`, plan)] },
      { toolCalls: [deleteCall(`${marker}-a`, 'tmp/a'), deleteCall(`${marker}-b`, 'tmp/b')] },
      { toolCalls: [deleteCall(`${marker}-c`, 'tmp/c')] },
      { toolCalls: [deleteCall(`${marker}-again`, 'tmp/a')] },
      { text: 'cleaned up' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} clean tmp` }],
      requester: 'eve',
    });
    // One approval for the plan, whose input is the plan, for the people who may decide every call in it.
    const planApproval = await waitingCall(handle, `${marker}-plan`);
    expect(planApproval).toMatchObject({ toolName: 'proposePlan', input: { calls: plan } });
    expect(environment.model.requestsFor(marker)[0]?.toolNames).toContain('proposePlan');
    await expect(
      environment.tollgate.decideMany(handle.workflowId, [
        { approvalId: planApproval.approvalId, approved: true, approver: 'cy' },
      ]),
    ).rejects.toThrow(/"cy" may not decide/);
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: planApproval.approvalId, approved: true, approver: 'ana' },
    ]);

    // The planned calls ran without asking; the off-plan one waits.
    const offPlan = await waitingCall(handle, `${marker}-c`);
    expect(runsOf(`${marker}-a`)).toHaveLength(1);
    expect(runsOf(`${marker}-b`)).toHaveLength(1);
    expect(runsOf(`${marker}-c`)).toHaveLength(0);
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: offPlan.approvalId, approved: true, approver: 'bo' },
    ]);
    // The same call as a used entry asks again.
    const repeat = await waitingCall(handle, `${marker}-again`);
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: repeat.approvalId, approved: false, approver: 'bo', reason: 'already deleted' },
    ]);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(runsOf(`${marker}-again`)).toHaveLength(0);

    // The model was told which calls the plan covers.
    const planResult = toolResults(result).find((part) => part.toolCallId === `${marker}-plan`);
    expect(planResult?.output).toEqual({
      type: 'text',
      value: expect.stringContaining('Plan approved by ana. These calls run once each in this turn without asking:'),
    });
    const told = JSON.stringify(environment.model.requestsFor(marker)[1]?.messages);
    expect(told).toContain('1. deleteFile {\\"path\\":\\"tmp/a\\"}');

    // The audit names the plan as what approved the two planned calls.
    const reason = (n: number) => `Approved by plan ${planApproval.approvalId} (approved by ana), call ${n} of 2.`;
    expect(result.audit.map((entry) => [entry.toolCallId, entry.via, entry.decision])).toEqual([
      [`${marker}-plan`, 'update', 'approved'],
      [`${marker}-a`, 'plan', 'approved'],
      [`${marker}-b`, 'plan', 'approved'],
      [`${marker}-c`, 'update', 'approved'],
      [`${marker}-again`, 'update', 'denied'],
    ]);
    expect(result.audit[1]).toMatchObject({
      approver: 'ana',
      reason: reason(1),
      plan: { approvalId: planApproval.approvalId, approvedBy: ['ana'] },
    });
    expect(result.audit[2]).toMatchObject({ reason: reason(2) });
    // So does the transcript: the approval responses the AI SDK reads carry the plan's reason.
    const responses = result.messages.flatMap((message) =>
      message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-approval-response') : [],
    );
    expect(responses).toContainEqual(expect.objectContaining({ approved: true, reason: reason(1) }));
    expectValidTranscript(result);
  });

  it('is approved only by someone who may decide every call in it', async () => {
    const marker = uniqueMarker();
    const plan = [
      { toolName: 'deleteFile', input: { path: 'tmp/old-build' } },
      { toolName: 'deploy', input: { service: 'web' } },
    ];
    environment.model.scriptFor(
      marker,
      { toolCalls: [planCall(`${marker}-plan`, plan)] },
      {
        toolCalls: [
          deleteCall(`${marker}-del`, 'tmp/old-build'),
          { id: `${marker}-deploy`, name: 'deploy', arguments: { service: 'web' } },
        ],
      },
      { text: 'deployed' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} ship` }] });
    const planApproval = await waitingCall(handle, `${marker}-plan`);
    expect(planApproval.approvers).toEqual(['bo']);
    for (const person of ['ana', 'cy']) {
      await expect(
        environment.tollgate.decideMany(handle.workflowId, [
          { approvalId: planApproval.approvalId, approved: true, approver: person },
        ]),
      ).rejects.toThrow(`"${person}" may not decide`);
    }
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: planApproval.approvalId, approved: true, approver: 'bo' },
    ]);
    const result = await handle.result();
    expect(result.audit.map((entry) => [entry.toolName, entry.via, entry.approver])).toEqual([
      ['proposePlan', 'update', 'bo'],
      ['deleteFile', 'plan', 'bo'],
      ['deploy', 'plan', 'bo'],
    ]);
    expect(runsOf(`${marker}-deploy`)).toHaveLength(1);
  });

  it('never carries a plan into another turn', async () => {
    const first = uniqueMarker();
    environment.model.scriptFor(
      first,
      { toolCalls: [planCall(`${first}-plan`, [{ toolName: 'deleteFile', input: { path: 'tmp/kept' } }])] },
      { text: 'planned, but done already' },
    );
    const planned = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${first} plan` }] });
    const approval = await waitingCall(planned, `${first}-plan`);
    await environment.tollgate.decideMany(planned.workflowId, [
      { approvalId: approval.approvalId, approved: true, approver: 'ana' },
    ]);
    expect((await planned.result()).status).toBe('completed');

    const second = uniqueMarker();
    environment.model.scriptFor(second, { toolCalls: [deleteCall(`${second}-del`, 'tmp/kept')] }, { text: 'done' });
    const later = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${second} delete` }] });
    expect(await waitingCall(later, `${second}-del`)).toMatchObject({ toolName: 'deleteFile' });
    await later.terminate('test over');
  });

  it('denies a plan like any call: the model reads the denial, and its calls ask', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [planCall(`${marker}-plan`, [{ toolName: 'deleteFile', input: { path: 'tmp/x' } }])] },
      { toolCalls: [deleteCall(`${marker}-x`, 'tmp/x')] },
      { text: 'left it' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const planApproval = await waitingCall(handle, `${marker}-plan`);
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: planApproval.approvalId, approved: false, approver: 'bo', reason: 'one at a time' },
    ]);
    const call = await waitingCall(handle, `${marker}-x`);
    await environment.tollgate.decideMany(handle.workflowId, [
      { approvalId: call.approvalId, approved: false, approver: 'bo' },
    ]);
    const result = await handle.result();
    expect(toolResults(result).find((part) => part.toolCallId === `${marker}-plan`)?.output).toEqual({
      type: 'execution-denied',
      reason: 'one at a time',
    });
    expect(runsOf(`${marker}-x`)).toHaveLength(0);
    expectValidTranscript(result);
  });

  it('answers a malformed plan with an error the model reads, asking nobody', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          planCall(`${marker}-plan`, [
            { toolName: 'deleteFile', input: { path: 'tmp/y' } },
            { toolName: 'deleteFile', input: { file: 'tmp/z' } },
          ]),
        ],
      },
      { text: 'I will ask one by one' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.audit).toEqual([]);
    const output = toolResults(result).find((part) => part.toolCallId === `${marker}-plan`)?.output;
    expect(output).toEqual({
      type: 'error-text',
      value: expect.stringMatching(/^The plan was not proposed: Call 2 has invalid input for tool "deleteFile"/),
    });
    expect(JSON.stringify(environment.model.requestsFor(marker)[1]?.messages)).toContain('The plan was not proposed');
    expectValidTranscript(result);
  });
});
