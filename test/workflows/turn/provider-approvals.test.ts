import { modelMessageSchema as aiModelMessageSchema } from 'ai-v6';
import type { ProviderTool } from '../../../src/protocol';
import {
  createTestEnvironment,
  uniqueMarker,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const github: ProviderTool = {
  type: 'mcp',
  serverLabel: 'github',
  serverUrl: 'https://mcp.example.com/github',
  requireApproval: 'always',
};
let environment: TestEnvironment;
let requestNumber = 0;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools: createTestTools().tools });
});
afterAll(async () => {
  await environment?.close();
});

async function startIssueTurn(marker: string, approvalId: string) {
  environment.model.scriptFor(
    marker,
    {
      mcpApprovalRequests: [
        { id: approvalId, serverLabel: 'github', name: 'create_issue', arguments: { title: 'Flaky test' } },
      ],
    },
    (request) =>
      JSON.stringify(request.responses?.input).includes('"approve":true')
        ? {
            mcpCalls: [
              { serverLabel: 'github', name: 'create_issue', arguments: { title: 'Flaky test' }, output: 'issue #7' },
            ],
            text: 'Created issue #7.',
          }
        : { text: 'I did not create the issue.' },
  );
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} file an issue about the flaky test` }],
    modelApi: 'responses',
    providerTools: [github],
  });
  const [approval] = await waitForPending(handle, 1);
  return { handle, approval: approval! };
}

function responsesInputOf(marker: string, index: number): unknown[] {
  return environment.model.requestsFor(marker)[index]?.responses?.input ?? [];
}

describe('provider-executed approvals (Responses API, MCP)', () => {
  it('waits on an MCP approval request like any other and sends the approval back to the provider', async () => {
    const marker = uniqueMarker();
    const approvalId = `mcpr_${(requestNumber += 1)}`;
    const { handle, approval } = await startIssueTurn(marker, approvalId);
    expect(approval).toMatchObject({ approvalId, toolName: 'mcp.create_issue', input: { title: 'Flaky test' } });

    await environment.tollgate.decideMany(handle.workflowId, [{ approvalId, approved: true, approver: 'ana' }]);
    const result = await handle.result();

    expect(result.text).toBe('Created issue #7.');
    expect(responsesInputOf(marker, 1)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'mcp_approval_request',
          id: approvalId,
          server_label: 'github',
          name: 'create_issue',
        }),
        expect.objectContaining({ type: 'mcp_approval_response', approval_request_id: approvalId, approve: true }),
      ]),
    );
    expect(result.messages[1]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId, approved: true, providerExecuted: true }],
    });
    expect(result.audit[0]).toMatchObject({ approvalId, decision: 'approved', approver: 'ana' });
    for (const message of result.messages) expect(aiModelMessageSchema.safeParse(message).error).toBeUndefined();
  });

  it('sends a denial to the provider, which then does not run the call', async () => {
    const marker = uniqueMarker();
    const approvalId = `mcpr_${(requestNumber += 1)}`;
    const { handle } = await startIssueTurn(marker, approvalId);
    await handle.signal('toolApprovalResponse', { approvalId, approved: false, reason: 'no new issues this week' });
    const result = await handle.result();

    expect(result.text).toBe('I did not create the issue.');
    expect(responsesInputOf(marker, 1)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'mcp_approval_response', approval_request_id: approvalId, approve: false }),
      ]),
    );
    expect(result.audit[0]).toMatchObject({ decision: 'denied', reason: 'no new issues this week', via: 'signal' });
  });
});
