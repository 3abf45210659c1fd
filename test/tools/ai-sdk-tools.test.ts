import { jsonSchema, tool } from 'ai';
import { tool as toolV6 } from 'ai-v6';
import { z } from 'zod';
import { toolsFromAiSdk } from '../../src/tools';
import { resultsOf } from '../support/results-of';
import { createTestEnvironment, uniqueMarker, waitForPending, type TestEnvironment } from '../support/test-environment';

// AI SDK tools as a team already has them, run by a Tollgate worker against the dev server: the approval is
// Tollgate's (durable, decided through the client), the checks and the work are the tools' own.
const ran: string[] = [];
const aiSdkTools = {
  refund: tool({
    description: 'Refund an order',
    inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
    needsApproval: async ({ amount }) => amount > 100,
    execute: async ({ orderId, amount }, { toolCallId }) => {
      ran.push(`refund ${orderId}`);
      return { orderId, refunded: amount, toolCallId };
    },
  }),
  deploy: tool({
    description: 'Deploy a service',
    inputSchema: jsonSchema<{ service: string }>({
      type: 'object',
      properties: { service: { type: 'string', minLength: 1 } },
      required: ['service'],
      additionalProperties: false,
    }),
    needsApproval: true,
    execute: async ({ service }) => {
      ran.push(`deploy ${service}`);
      return `deployed ${service}`;
    },
  }),
  exportReport: toolV6({
    description: 'Export a report',
    inputSchema: z.object({ name: z.string() }),
    async *execute({ name }) {
      yield { status: 'exporting', name };
      yield { status: 'done', name, rows: 3 };
    },
  }),
};

let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools: await toolsFromAiSdk(aiSdkTools) });
});
afterAll(async () => {
  await environment?.close();
});

describe('AI SDK tools on a Tollgate worker', () => {
  it('runs a small refund at once, holds a large one and a deploy for a person, and reports the denial', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-small`, name: 'refund', arguments: { orderId: 'S-1', amount: 20 } },
          { id: `${marker}-large`, name: 'refund', arguments: { orderId: 'L-1', amount: 900 } },
          { id: `${marker}-deploy`, name: 'deploy', arguments: { service: 'web' } },
          { id: `${marker}-export`, name: 'exportReport', arguments: { name: 'q3' } },
        ],
      },
      { text: 'Done.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const pending = await waitForPending(handle, 2);
    expect(pending.map((approval) => [approval.toolName, approval.input]).sort()).toEqual([
      ['deploy', { service: 'web' }],
      ['refund', { orderId: 'L-1', amount: 900 }],
    ]);
    for (const approval of pending) {
      await environment.tollgate.decide(approval.approvalId, {
        approved: approval.toolName === 'deploy',
        approver: 'ana',
        ...(approval.toolName === 'refund' && { reason: 'Too large' }),
      });
    }
    const result = await handle.result();

    expect(result.status).toBe('completed');
    const outputs = Object.fromEntries(resultsOf(result.messages).map((part) => [part.toolCallId, part.output]));
    expect(outputs).toEqual({
      [`${marker}-small`]: { type: 'json', value: { orderId: 'S-1', refunded: 20, toolCallId: `${marker}-small` } },
      [`${marker}-large`]: { type: 'execution-denied', reason: 'Too large' },
      [`${marker}-deploy`]: { type: 'text', value: 'deployed web' },
      [`${marker}-export`]: { type: 'json', value: { status: 'done', name: 'q3', rows: 3 } },
    });
    expect(ran).toEqual(expect.arrayContaining(['refund S-1', 'deploy web']));
    expect(ran).not.toContain('refund L-1');
  }, 60_000);

  it("refuses a call whose arguments break the tool's JSON Schema before anyone is asked", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-bad`, name: 'deploy', arguments: { service: '', region: 'eu' } }] },
      { text: 'I will fix the call.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(resultsOf(result.messages).map((part) => part.output)).toEqual([
      { type: 'error-text', value: expect.stringMatching(/^Invalid input for tool "deploy"/) },
    ]);
    expect(result.audit).toEqual([]);
  }, 60_000);
});
