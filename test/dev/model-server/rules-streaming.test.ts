import OpenAI from 'openai';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';

describe('the development model (rules mode) streaming', () => {
  let server: ModelServer;

  beforeAll(async () => {
    server = await startModelServer({ rules: true });
  });

  afterAll(async () => {
    await server.close();
  });

  it('streams its answer in pieces spread over time, so a chat shows it grow rather than as one chunk', async () => {
    const client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hello there' }],
      stream: true,
    });
    const arrivals: number[] = [];
    let text = '';
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) {
        arrivals.push(Date.now());
        text += piece;
      }
    }
    expect(text).toContain('I am the Tollgate scripted model.');
    expect(arrivals.length).toBeGreaterThan(10);
    // Longer than a worker's 250 ms heartbeat interval several times over: the chat sees several updates.
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThan(1_000);
  });
});
