import { z } from 'zod';
import { submitToolOutputUpdate } from '../../../src/workflows/definitions';
import { defineTool } from '../../../src/tools';
import { createTestEnvironment, uniqueMarker, waitFor, type TestEnvironment } from '../../support/test-environment';

/** A tool the client runs (no `execute`): it fetches a page in the browser and sends back its text. */
const fetchPage = defineTool({
  name: 'fetchPage',
  description: "Fetches a page in the user's browser. Run by the client, not the worker.",
  inputSchema: z.object({ url: z.string() }),
});

describe('large outputs of client tools', () => {
  let environment: TestEnvironment;
  beforeAll(async () => {
    environment = await createTestEnvironment({ tools: [fetchPage] });
  });
  afterAll(async () => environment?.close());

  it('are stored, not carried in history, so two of 1.2 MB do not stop the turn, and the model reads both in full', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-a`, name: 'fetchPage', arguments: { url: 'https://a.example' } },
          { id: `${marker}-b`, name: 'fetchPage', arguments: { url: 'https://b.example' } },
        ],
      },
      { text: 'read both' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} read` }] });
    await waitFor(
      () => environment.tollgate.state(handle.workflowId),
      (state) => state.awaitingOutput.length === 2,
    );
    const page = (letter: string) => `${letter}`.repeat(1_200_000);
    for (const letter of ['a', 'b']) {
      const recorded = await handle.executeUpdate(submitToolOutputUpdate, {
        args: [{ toolCallId: `${marker}-${letter}`, output: page(letter) }],
      });
      // What the turn keeps is a preview naming the stored output.
      expect(JSON.stringify(recorded).length).toBeLessThan(2_000);
      expect(recorded.output).toMatchObject({
        type: 'text',
        providerOptions: {
          tollgate: { contentRef: expect.stringMatching(/^sha256:/), contentTurn: handle.workflowId },
        },
      });
    }
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.text).toBe('read both');
    // The model was given both outputs whole, read back from the store.
    const [, second] = environment.model.requestsFor(marker);
    const told = JSON.stringify(second?.messages);
    expect(told).toContain(page('a'));
    expect(told).toContain(page('b'));
  });
});
