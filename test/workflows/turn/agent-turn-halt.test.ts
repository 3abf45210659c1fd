import { WorkflowFailedError } from '@temporalio/client';
import type { AgentTurnInput, ModelMessage, ToolApprovalRequestPart } from '../../../src/protocol';
import { createTestEnvironment, uniqueMarker, type TestEnvironment } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { resultsOf } from '../../support/results-of';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => {
  await environment?.close();
});

async function runTurn(input: AgentTurnInput) {
  return (await environment.tollgate.startTurn({ approvalWait: 'halt', ...input })).result();
}

function requestsIn(messages: ModelMessage[]): ToolApprovalRequestPart[] {
  return messages.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string'
      ? message.content.filter((part): part is ToolApprovalRequestPart => part.type === 'tool-approval-request')
      : [],
  );
}

const runsOf = (toolCallId: string) => runs.filter((run) => run.toolCallId === toolCallId);

describe('agentTurn in halt mode', () => {
  it('ends with awaiting-approval, then a turn carrying the decisions runs, denies and goes on', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-a`, name: 'deleteFile', arguments: { path: 'a' } },
          { id: `${marker}-look`, name: 'lookup', arguments: { query: 'q' } },
          { id: `${marker}-b`, name: 'deleteFile', arguments: { path: 'b' } },
        ],
      },
      { text: 'a is gone, b stays' },
    );
    const history: ModelMessage[] = [{ role: 'user', content: `${marker} tidy` }];
    const halted = await runTurn({ messages: history });

    expect(halted.status).toBe('awaiting-approval');
    expect(halted.pending.map((approval) => approval.toolCallId)).toEqual([`${marker}-a`, `${marker}-b`]);
    expect(resultsOf(halted.messages).map((part) => part.toolCallId)).toEqual([`${marker}-look`]);
    expect(runsOf(`${marker}-a`)).toHaveLength(0);
    const [a, b] = requestsIn(halted.messages);

    history.push(...halted.messages, {
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: a!.approvalId, approved: true },
        { type: 'tool-approval-response', approvalId: b!.approvalId, approved: false, reason: 'keep b' },
        // A duplicate, even a conflicting one, never runs a call twice: the first response wins.
        { type: 'tool-approval-response', approvalId: a!.approvalId, approved: true },
        { type: 'tool-approval-response', approvalId: b!.approvalId, approved: true },
      ],
    });
    const continued = await runTurn({ messages: history });

    expect(continued.status).toBe('completed');
    expect(continued.text).toBe('a is gone, b stays');
    expect(runsOf(`${marker}-a`)).toHaveLength(1);
    expect(runsOf(`${marker}-b`)).toHaveLength(0);
    expect(continued.messages[0]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `${marker}-a`,
          toolName: 'deleteFile',
          output: { type: 'json', value: { deleted: 'a' } },
        },
        {
          type: 'tool-result',
          toolCallId: `${marker}-b`,
          toolName: 'deleteFile',
          output: { type: 'execution-denied', reason: 'keep b' },
        },
      ],
    });
    expect(continued.audit.map((entry) => [entry.toolCallId, entry.decision, entry.via])).toEqual([
      [`${marker}-a`, 'approved', 'message'],
      [`${marker}-b`, 'denied', 'message'],
    ]);
  });

  it('handles several approval rounds in one conversation and never reruns a call that has a result', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deploy', arguments: { service: 'api' } }] },
      { toolCalls: [{ id: `${marker}-2`, name: 'deploy', arguments: { service: 'web' } }] },
      { text: 'both deployed' },
    );
    const history: ModelMessage[] = [{ role: 'user', content: `${marker} deploy all` }];
    const first = await runTurn({ messages: history });
    history.push(...first.messages, {
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: requestsIn(first.messages)[0]!.approvalId, approved: true },
      ],
    });
    const second = await runTurn({ messages: history });
    expect(second.status).toBe('awaiting-approval');
    expect(runsOf(`${marker}-1`)).toHaveLength(1);

    // The caller answers round two but resends round one's response too: round one must not run again.
    history.push(...second.messages, {
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: requestsIn(first.messages)[0]!.approvalId, approved: true },
        { type: 'tool-approval-response', approvalId: requestsIn(second.messages)[0]!.approvalId, approved: true },
      ],
    });
    const third = await runTurn({ messages: history });
    expect(third.status).toBe('completed');
    expect(third.text).toBe('both deployed');
    expect(runsOf(`${marker}-1`)).toHaveLength(1);
    expect(runsOf(`${marker}-2`)).toHaveLength(1);
  });

  it('halts again without calling the model when a request is left unanswered', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(marker, {
      toolCalls: [
        { id: `${marker}-a`, name: 'deleteFile', arguments: { path: 'a' } },
        { id: `${marker}-b`, name: 'deleteFile', arguments: { path: 'b' } },
      ],
    });
    const history: ModelMessage[] = [{ role: 'user', content: `${marker} go` }];
    const first = await runTurn({ messages: history });
    const [a, b] = requestsIn(first.messages);
    history.push(...first.messages, {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: a!.approvalId, approved: false }],
    });
    const second = await runTurn({ messages: history });
    expect(second.status).toBe('awaiting-approval');
    // b waits under a fresh request of this turn, so a decision by id reaches the turn that waits.
    expect(second.pending.map((approval) => approval.toolCallId)).toEqual([`${marker}-b`]);
    expect(second.pending[0]?.approvalId).not.toBe(b!.approvalId);
    expect(requestsIn(second.messages).map((request) => request.approvalId)).toEqual([second.pending[0]?.approvalId]);
    expect(resultsOf(second.messages)).toEqual([
      expect.objectContaining({ toolCallId: `${marker}-a`, output: { type: 'execution-denied' } }),
    ]);
    expect(environment.model.requestsFor(marker)).toHaveLength(1);
  });

  it('fails clearly when the last message answers an approvalId the history never asked for', async () => {
    const marker = uniqueMarker();
    const handle = await environment.tollgate.startTurn({
      approvalWait: 'halt',
      messages: [
        { role: 'user', content: `${marker} hi` },
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'made-up', approved: true }] },
      ],
    });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(String((failure as WorkflowFailedError).cause?.message)).toMatch(/Unknown approvalId "made-up"/);
    expect(environment.model.requestsFor(marker)).toHaveLength(0);
  });
});
