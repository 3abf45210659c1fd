import { modelMessageSchema as aiModelMessageSchema } from 'ai-v6';
import { Worker } from '@temporalio/worker';
import {
  createTestEnvironment,
  uniqueMarker,
  workflowBundlePath,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { modelMessageSchema } from '../../../src/protocol';

const { tools } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => {
  await environment?.close();
});

describe('agentTurn messages', () => {
  it("returns messages that both Tollgate's schemas and the AI SDK's modelMessageSchema accept", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        text: 'Let me look and then clean up.',
        toolCalls: [
          { id: `${marker}-1`, name: 'lookup', arguments: { query: 'x' } },
          { id: `${marker}-2`, name: 'deleteFile', arguments: { path: 'a' } },
          { id: `${marker}-3`, name: 'deleteFile', arguments: { path: 'b' } },
          { id: `${marker}-4`, name: 'nope', arguments: {} },
        ],
      },
      { text: 'All done.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} work` }] });
    const pending = await waitForPending(handle, 2);
    await environment.tollgate.decide(pending[0]!.approvalId, { approved: true });
    await environment.tollgate.decide(pending[1]!.approvalId, { approved: false, reason: 'not b' });
    const result = await handle.result();

    const history = [{ role: 'user', content: `${marker} work` }, ...result.messages];
    for (const message of history) {
      expect(modelMessageSchema.parse(message)).toEqual(message);
      expect(aiModelMessageSchema.safeParse(message).error).toBeUndefined();
    }
    const types = result.messages.flatMap((message) =>
      typeof message.content === 'string' ? [] : message.content.map((part) => part.type),
    );
    expect(types).toEqual([
      'text',
      'tool-call',
      'tool-call',
      'tool-call',
      'tool-call',
      'tool-approval-request',
      'tool-approval-request',
      'tool-approval-response',
      'tool-approval-response',
      'tool-result',
      'tool-result',
      'tool-result',
      'tool-result',
      'text',
    ]);

    // The same history replays on today's code without a determinism error.
    const history2 = await handle.fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath() } }, history2, handle.workflowId);
  });
});
