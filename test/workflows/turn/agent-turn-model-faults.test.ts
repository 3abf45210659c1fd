import { WorkflowFailedError } from '@temporalio/client';
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

function outputsOf(messages: { role: string; content: unknown }[]) {
  return resultsOf(messages).map((part) => part.output);
}

describe('agentTurn with a faulty model', () => {
  it.each([
    [
      'an unknown tool name',
      { name: 'launchRockets', arguments: { now: true } },
      /Unknown tool "launchRockets"[\s\S]*lookup/,
    ],
    [
      'input that fails the schema',
      { name: 'deleteFile', arguments: { file: 'x' } },
      /Invalid input for tool "deleteFile"[\s\S]*path/,
    ],
    ['malformed JSON arguments', { name: 'lookup', arguments: '{"query": "unterminated' }, /not valid JSON/],
  ])('turns %s into an error result the model reads, and goes on', async (_case, call, expected) => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, ...call }] },
      { text: 'Sorry, let me fix that.' },
    );
    const result = await (
      await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] })
    ).result();

    expect(result.status).toBe('completed');
    expect(result.text).toBe('Sorry, let me fix that.');
    expect(outputsOf(result.messages)).toEqual([{ type: 'error-text', value: expect.stringMatching(expected) }]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
    expect(result.audit).toEqual([]);
    const told = environment.model.requests.filter((request) => JSON.stringify(request.messages).includes(marker))[1];
    expect(told?.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: `${marker}-1`,
      content: expect.stringMatching(expected),
    });
  });

  it('retries the model after a 500 and a 429', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { error: { status: 500, message: 'upstream hiccup' } },
      { error: { status: 429, message: 'slow down' } },
      { text: 'third time lucky' },
    );
    const result = await (
      await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} hi` }] })
    ).result();
    expect(result.text).toBe('third time lucky');
  });

  it('fails the turn at once, with the reason, when the model rejects the request with a 400', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(marker, { error: { status: 400, message: 'context length exceeded' } });
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} hi` }] });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const messages: string[] = [];
    for (let error: Error | undefined = failure as Error; error; error = error.cause as Error | undefined)
      messages.push(error.message);
    expect(messages.join('\n')).toMatch(/rejected the request \(HTTP 400\)[\s\S]*context length exceeded/);
    const attempts = environment.model.requests.filter((request) => JSON.stringify(request.messages).includes(marker));
    expect(attempts).toHaveLength(1);
  });

  it('refuses to start a turn with bad input, saying what is wrong', async () => {
    await expect(environment.tollgate.startTurn({ messages: [], maxSteps: 0 })).rejects.toThrow(
      /messages[\s\S]*maxSteps/,
    );
  });
});
