import { MockActivityEnvironment } from '@temporalio/testing';
import OpenAI from 'openai';
import { createCallModel } from '../../../src/activities/model/call-model';
import { createCallModelResponses } from '../../../src/activities/model/call-model-responses';
import { isModelStreamProgress, type ModelStreamProgress } from '../../../src/activities/model/model-stream-progress';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';
import type { ToolManifestEntry } from '../../../src/tools';

const lookupTool: ToolManifestEntry = {
  name: 'lookup',
  description: 'Look a word up',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
  approval: 'never',
};

const longText = Array.from({ length: 40 }, (_value, index) => `word${index}`).join(' ');

describe('callModel streaming', () => {
  let server: ModelServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startModelServer({ streamDelayMs: 10 });
    client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 });
  });

  afterEach(() => {
    expect(server.failures).toEqual([]);
    server.reset();
  });

  afterAll(async () => {
    await server.close();
  });

  /** Runs an activity function in a mock activity context and collects its heartbeats. */
  async function withHeartbeats<T>(run: () => Promise<T>): Promise<{ result: T; beats: ModelStreamProgress[] }> {
    const environment = new MockActivityEnvironment();
    const beats: ModelStreamProgress[] = [];
    environment.on('heartbeat', (details: unknown) => {
      if (isModelStreamProgress(details)) beats.push(details);
    });
    const result = (await environment.run(run)) as T;
    return { result, beats };
  }

  for (const api of ['chat', 'responses'] as const) {
    it(`heartbeats the growing text and reasoning a few times a second and returns the same step as without streaming (${api})`, async () => {
      const reply = {
        reasoning: 'Looking it up is best.',
        text: longText,
        toolCalls: [{ id: 'call_l', name: 'lookup', arguments: { query: 'tollgate' } }],
      };
      server.script(reply, reply);
      const create = api === 'chat' ? createCallModel : createCallModelResponses;
      const streamed = create({ client, defaultModel: 'gpt-test' });
      const plain = create({ client, defaultModel: 'gpt-test', stream: false });
      const input = { messages: [{ role: 'user' as const, content: 'define tollgate' }], tools: [lookupTool] };

      const { result, beats } = await withHeartbeats(() => streamed(input));
      const expected = await plain(input);

      // The streamed step keeps the reasoning as its first part; the rest is what the plain call returns.
      expect(result.content[0]).toEqual({ type: 'reasoning', text: 'Looking it up is best.' });
      const withoutReasoning = (step: typeof result) => ({
        ...step,
        content: step.content.filter((part) => part.type !== 'reasoning'),
      });
      expect(withoutReasoning(result)).toEqual(withoutReasoning(expected));
      expect(beats.length).toBeGreaterThan(1);
      // Throttled: ~50 chunks 10 ms apart make a handful of heartbeats, not one per token.
      expect(beats.length).toBeLessThan(12);
      const last = beats.at(-1) as ModelStreamProgress;
      expect(last).toMatchObject({ text: longText, reasoning: 'Looking it up is best.', attempt: 1 });
      expect(last.toolCalls).toEqual([{ toolCallId: 'call_l', toolName: 'lookup' }]);
      for (const [index, beat] of beats.entries()) {
        expect(longText.startsWith(beat.text)).toBe(true);
        if (index > 0)
          expect(beat.text.length).toBeGreaterThanOrEqual((beats[index - 1] as ModelStreamProgress).text.length);
      }
      expect(server.requests[0]?.stream).toBe(true);
      expect(server.requests[1]?.stream).toBe(false);
    });
  }

  it('sends no heartbeat for an answer that streams in less than the interval: the result carries it', async () => {
    server.script({ text: 'ok' });
    const { result, beats } = await withHeartbeats(() =>
      createCallModel({ client, defaultModel: 'gpt-test' })({ messages: [{ role: 'user', content: 'hi' }], tools: [] }),
    );
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(server.requests.at(-1)?.stream).toBe(true);
    expect(beats).toEqual([]);
  });

  for (const api of ['chat', 'responses'] as const) {
    it(`asks for the whole answer at once in a local activity, which cannot heartbeat a stream (${api})`, async () => {
      const reply = { text: longText, toolCalls: [{ id: 'call_m', name: 'lookup', arguments: { query: 'x' } }] };
      server.script(reply, reply);
      const create = api === 'chat' ? createCallModel : createCallModelResponses;
      const input = { messages: [{ role: 'user' as const, content: 'define x' }], tools: [lookupTool] };
      const local = await new MockActivityEnvironment({ isLocal: true }).run(() =>
        create({ client, defaultModel: 'gpt-test' })(input),
      );
      const { result: streamed } = await withHeartbeats(() => create({ client, defaultModel: 'gpt-test' })(input));
      expect(server.requests.map((request) => request.stream)).toEqual([false, true]);
      expect(local).toEqual(streamed);
    });
  }

  it('classifies a model that fails before streaming as a rejected request', async () => {
    server.script({ error: { status: 400, message: 'bad request' } });
    const callModel = createCallModel({ client, defaultModel: 'gpt-test' });
    await expect(callModel({ messages: [{ role: 'user', content: 'x' }], tools: [] })).rejects.toMatchObject({
      type: 'ModelRequestRejected',
      nonRetryable: true,
    });
  });
});
