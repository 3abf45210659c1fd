import { createHash, randomUUID } from 'node:crypto';
import type { AgentTurnResult, ModelMessage, ToolResultPart } from '../../../src/protocol';
import { uniqueMarker } from '../../support/test-environment';
import { longDefinitionOf } from '../../support/test-tools';
import { expectProblem } from '../gateway-fixture';
import { useTurnGateway } from '../../support/turn-gateway-fixture';

const stack = useTurnGateway();

/** A turn started over REST as `as` whose tool returns an output over 4 KiB, kept in the content store. */
async function turnWithStoredOutput(as: 'ana' | 'bob', options: { storedTranscript?: boolean } = {}) {
  const marker = uniqueMarker();
  const query = `long:${marker}`;
  stack.environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query } }] },
    { text: 'looked up' },
  );
  const started = await stack.gateway.call('POST', '/v1/turns', {
    as,
    // A transcript is stored only past 4 KiB (inlineTranscriptMaxBytes); a short one travels inline.
    body: {
      messages: [{ role: 'user', content: `${marker} define it${options.storedTranscript ? ' '.repeat(20_000) : ''}` }],
    },
  });
  expect(started.status).toBe(201);
  const workflowId = started.body.workflowId as string;
  const result = (await stack.environment.tollgate.turn(workflowId).result()) as AgentTurnResult;
  const stub = result.messages
    .flatMap((message) => (message.role === 'tool' ? message.content : []))
    .find((part): part is ToolResultPart => part.type === 'tool-result') as ToolResultPart;
  const ref = stub.providerOptions?.tollgate?.contentRef as string;
  expect(ref).toMatch(/^sha256:/);
  return { marker, workflowId, result, stub, ref, full: longDefinitionOf(query) };
}

const contentPath = (workflowId: string, ref: string) =>
  `/v1/turns/${encodeURIComponent(workflowId)}/content/${encodeURIComponent(ref)}`;

/** Every message down a failure's chain of causes. */
function failureText(error: unknown): string {
  const messages: string[] = [];
  for (let cause = error as { message?: string; cause?: unknown } | undefined; cause; cause = cause.cause as never) {
    messages.push(cause.message ?? '');
  }
  return messages.join(' <- ');
}

/** A failure as far as these tests read it. */
interface Cause {
  type?: string;
  nonRetryable?: boolean;
  cause?: unknown;
}

/** An error and every cause under it. */
function causesOf(error: unknown): Cause[] {
  const causes: Cause[] = [];
  for (let cause = error as Cause | undefined; cause; cause = cause.cause as Cause | undefined) causes.push(cause);
  return causes;
}

const unknownRef = () => `sha256:${createHash('sha256').update(randomUUID()).digest('hex')}`;

describe('content is read through the turn that owns it', () => {
  it("gives a turn's owner its full output by ref, and another tenant the same 404 as an unknown ref", async () => {
    const turn = await turnWithStoredOutput('ana');
    expect(turn.stub.providerOptions?.tollgate?.contentTurn).toBe(turn.workflowId);

    const own = await stack.gateway.call('GET', contentPath(turn.workflowId, turn.ref), { as: 'ana' });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      workflowId: turn.workflowId,
      ref: turn.ref,
      output: { type: 'text', value: turn.full },
    });
    const auditor = await stack.gateway.call('GET', contentPath(turn.workflowId, turn.ref), { as: 'auditor' });
    expect(auditor.body.output).toEqual({ type: 'text', value: turn.full });

    // Bob holds Ana's ref and turn id: he is told exactly what he is told for content that does not exist.
    const foreign = await stack.gateway.call('GET', contentPath(turn.workflowId, turn.ref), { as: 'bob' });
    expectProblem(foreign, 404, 'not-found');
    expect(foreign.text).not.toContain('word699');
    const fake = unknownRef();
    const unknownForBob = await stack.gateway.call('GET', contentPath(turn.workflowId, fake), { as: 'bob' });
    const unknownForAna = await stack.gateway.call('GET', contentPath(turn.workflowId, fake), { as: 'ana' });
    const noSuchTurn = await stack.gateway.call('GET', contentPath(`turn-${randomUUID()}`, turn.ref), { as: 'bob' });
    const shape = (response: typeof foreign, ref: string, workflowId: string) => ({
      status: response.status,
      type: response.body.type,
      title: response.body.title,
      detail: response.body.detail.replace(ref, '<ref>').replace(workflowId, '<turn>'),
    });
    const expected = shape(foreign, turn.ref, turn.workflowId);
    expect(shape(unknownForBob, fake, turn.workflowId)).toEqual(expected);
    expect(shape(unknownForAna, fake, turn.workflowId)).toEqual(expected);
    expect(shape(noSuchTurn, turn.ref, noSuchTurn.body.detail.match(/turn "([^"]+)"/)?.[1] ?? '')).toEqual(expected);

    // Through a turn of his own the ref is not his either: it is not among that turn's outputs.
    const bobs = await turnWithStoredOutput('bob');
    const throughOwnTurn = await stack.gateway.call('GET', contentPath(bobs.workflowId, turn.ref), { as: 'bob' });
    expect(shape(throughOwnTurn, turn.ref, bobs.workflowId)).toEqual(expected);
  }, 60_000);

  it("refuses a new turn whose messages carry another tenant's ref, so the model never reads it", async () => {
    const turn = await turnWithStoredOutput('ana');
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(marker, { text: 'here it is' });
    const history = (owner: string): ModelMessage[] => [
      { role: 'user', content: `${marker} ${owner} define it` },
      ...turn.result.messages,
      { role: 'user', content: 'repeat the definition word for word' },
    ];

    const refused = await stack.gateway.call('POST', '/v1/turns', { as: 'bob', body: { messages: history('bob') } });
    expectProblem(refused, 400, 'invalid-request');
    expect(refused.body.detail).toContain('is not an output of a turn you can read');
    const long = await turnWithStoredOutput('ana', { storedTranscript: true });
    expect(long.result.transcript?.head).toMatch(/^sha256:/);
    const stored = await stack.gateway.call('POST', '/v1/turns', {
      as: 'bob',
      body: { messages: [{ role: 'user', content: `${marker} again` }], transcript: long.result.transcript?.head },
    });
    expectProblem(stored, 403, 'forbidden');
    expect(stack.environment.model.requestsFor(marker)).toHaveLength(0);

    // Ana carries her own turn's messages on, and her model reads the output in full.
    const continued = await stack.gateway.call('POST', '/v1/turns', { as: 'ana', body: { messages: history('ana') } });
    expect(continued.status).toBe(201);
    await stack.environment.tollgate.turn(continued.body.workflowId as string).result();
    const [request] = stack.environment.model.requestsFor(marker);
    expect(JSON.stringify(request?.messages)).toContain('word699');
  }, 60_000);

  it('reads at most 32 turns to check the refs of one new turn', async () => {
    const stub = (index: number) => ({
      type: 'tool-result',
      toolCallId: `call-${index}`,
      toolName: 'lookup',
      output: { type: 'text', value: 'preview' },
      providerOptions: { tollgate: { contentRef: unknownRef(), contentTurn: `turn-nowhere-${index}` } },
    });
    const messages = [
      { role: 'user', content: 'define them' },
      {
        role: 'assistant',
        content: Array.from({ length: 33 }, (_, index) => ({
          type: 'tool-call',
          toolCallId: `call-${index}`,
          toolName: 'lookup',
          input: { query: 'x' },
        })),
      },
      { role: 'tool', content: Array.from({ length: 33 }, (_, index) => stub(index)) },
      { role: 'user', content: 'go on' },
    ];
    const refused = await stack.gateway.call('POST', '/v1/turns', { as: 'ana', body: { messages } });
    expectProblem(refused, 400, 'invalid-request');
    expect(refused.body.detail).toContain('more than 32 turns');
  });

  it('tells the model when an output is missing from the store, and the turn completes', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(marker, { text: 'the lookup result is gone' });
    const missing = unknownRef();
    const handle = await stack.environment.tollgate.startTurn({
      messages: [
        { role: 'user', content: `${marker} define it` },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: `${marker}-1`, toolName: 'lookup', input: { query: 'long:x' } }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: `${marker}-1`,
              toolName: 'lookup',
              output: { type: 'text', value: `definition of long:x: word0 word1… [9000 bytes: ${missing}]` },
              providerOptions: { tollgate: { contentRef: missing } },
            },
          ],
        },
        { role: 'user', content: 'what did it say?' },
      ],
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.text).toBe('the lookup result is gone');
    const [request] = stack.environment.model.requestsFor(marker);
    const told = request?.messages.find((message) => message.role === 'tool');
    expect(JSON.stringify(told?.content)).toContain(
      `The full output of this lookup call (${missing}) is not available: it is not in the content store.`,
    );
    expect(JSON.stringify(told?.content)).toContain('definition of long:x: word0 word1');
  }, 30_000);

  it('fails a turn whose stored history is missing at once, saying so, instead of retrying the read', async () => {
    const marker = uniqueMarker();
    const handle = await stack.environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} go on` }],
      transcript: unknownRef(),
    });
    const failure = await handle.result().then(
      () => 'completed',
      (error: unknown) => failureText(error),
    );
    expect(failure).toContain("The turn's earlier history cannot be read");
    expect(failure).toContain("is not in Tollgate's content store");
    // Not retried: the read failed as a failure Temporal does not retry (ten retries would take minutes).
    const failed = await handle.result().catch((error: unknown) => error);
    expect(causesOf(failed)).toContainEqual(
      expect.objectContaining({ type: 'TranscriptNotFound', nonRetryable: true }),
    );
    expect(stack.environment.model.requestsFor(marker)).toHaveLength(0);
  }, 30_000);
});
