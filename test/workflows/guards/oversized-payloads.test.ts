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

describe('agentTurn with oversized payloads', () => {
  it('refuses a tool call with 3 MiB of arguments with an error the model reads, and the turn goes on', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query: 'q'.repeat(3 * 1024 * 1024) } }] },
      { text: 'Sorry, smaller this time.' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(result.text).toBe('Sorry, smaller this time.');
    expect(resultsOf(result.messages).map((part) => part.output)).toEqual([
      { type: 'error-text', value: expect.stringMatching(/are 3 MiB .*at most 256 KiB.*did not run/) },
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
    // The model is told the limit, and gets back a preview of its call rather than the 3 MiB.
    const told = environment.model.requests.filter((request) => JSON.stringify(request.messages).includes(marker))[1];
    expect(JSON.stringify(told?.messages).length).toBeLessThan(20_000);
    expect(told?.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: `${marker}-1`,
      content: expect.stringMatching(/at most 256 KiB/),
    });
  }, 60_000);
});

describe('agentTurn with an oversized answer', () => {
  it('keeps a 3 MiB model answer from failing the step: the text is cut at the limit, saying so, and the turn completes', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(marker, { text: `${'word '.repeat(600_000)}the end` });
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.text.length).toBeLessThan(300 * 1024);
    expect(result.text).toMatch(/^word word [\s\S]*… \[the rest of the model's answer \(2\.\d MiB .*\) was not kept/);
  }, 60_000);
});
