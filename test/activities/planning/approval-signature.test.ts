import { generateText, tool, type ModelMessage as AiModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import {
  inputDigestOf,
  signToolApproval,
  verifyToolApproval,
} from '../../../src/activities/planning/approval-signature';
import type { ModelMessage } from '../../../src/protocol';
import {
  createTestEnvironment,
  testApprovalSecret,
  uniqueMarker,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that calls `deleteFile` once, then answers. */
function modelCallingDeleteFile(toolCallId: string, path: string) {
  return new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId, toolName: 'deleteFile', input: JSON.stringify({ path }) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  });
}

describe('approval request signatures', () => {
  const call = { approvalId: 'a.1', toolCallId: 'call-1', toolName: 'deleteFile', input: { path: 'x', n: [1, 2] } };

  it('verify only for the exact call they were made for', () => {
    const signature = signToolApproval('secret', call);
    expect(verifyToolApproval('secret', signature, call)).toBe(true);
    expect(verifyToolApproval('other', signature, call)).toBe(false);
    expect(verifyToolApproval('secret', signature, { ...call, input: { path: 'y', n: [1, 2] } })).toBe(false);
    expect(verifyToolApproval('secret', signature, { ...call, toolName: 'bash' })).toBe(false);
    expect(verifyToolApproval('secret', undefined, call)).toBe(false);
    // Key order does not matter: the input is hashed in canonical form.
    expect(inputDigestOf({ b: 1, a: 2 })).toBe(inputDigestOf({ a: 2, b: 1 }));
  });

  it("are accepted by the AI SDK's generateText with the same secret, and a forged one is refused", async () => {
    const ran: string[] = [];
    const deleteFile = tool({
      description: 'Deletes a file.',
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => {
        ran.push(path);
        return `deleted ${path}`;
      },
    });
    const transcript = (signature: string): AiModelMessage[] => [
      { role: 'user', content: 'delete x' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'deleteFile', input: { path: 'x' } },
          { type: 'tool-approval-request', approvalId: 'a.1', toolCallId: 'call-1', signature },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a.1', approved: true }] },
    ];
    const signedByTollgate = signToolApproval(testApprovalSecret, { ...call, input: { path: 'x' } });
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    });
    await generateText({
      model,
      tools: { deleteFile },
      messages: transcript(signedByTollgate),
      experimental_toolApprovalSecret: testApprovalSecret,
    });
    expect(ran).toEqual(['x']);
    await expect(
      generateText({
        model,
        tools: { deleteFile },
        messages: transcript(signToolApproval('not-the-secret', { ...call, input: { path: 'x' } })),
        experimental_toolApprovalSecret: testApprovalSecret,
      }),
    ).rejects.toThrow(/signature/i);
    expect(ran).toEqual(['x']);
  });

  describe('made by the AI SDK', () => {
    const { tools, runs } = createTestTools();
    let environment: TestEnvironment;
    beforeAll(async () => {
      environment = await createTestEnvironment({ tools });
    });
    afterAll(async () => environment?.close());

    it('let a Tollgate turn run a call the AI SDK asked about and a person approved', async () => {
      const marker = uniqueMarker();
      const deleteFile = tool({
        description: 'Deletes a file.',
        inputSchema: z.object({ path: z.string() }),
        needsApproval: true,
      });
      const asked = await generateText({
        model: modelCallingDeleteFile(`${marker}-1`, 'report.pdf'),
        tools: { deleteFile },
        prompt: `${marker} delete the report`,
        experimental_toolApprovalSecret: testApprovalSecret,
      });
      const request = asked.content.find((part) => part.type === 'tool-approval-request');
      expect(request?.signature).toEqual(expect.any(String));
      environment.model.scriptFor(marker, { text: 'deleted it' });
      const history = [
        { role: 'user', content: `${marker} delete the report` },
        ...asked.response.messages,
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }],
        },
      ] as ModelMessage[];
      const result = await (await environment.tollgate.startTurn({ messages: history })).result();
      expect(result.status).toBe('completed');
      expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    });
  });
});
