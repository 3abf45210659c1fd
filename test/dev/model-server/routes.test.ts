import OpenAI from 'openai';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';

describe('startModelServer routes', () => {
  let server: ModelServer;

  beforeAll(async () => {
    server = await startModelServer();
  });

  afterAll(async () => {
    await server.close();
  });

  it('serves a base URL on 127.0.0.1 with a random port', () => {
    expect(server.baseURL).toBe(`http://127.0.0.1:${server.port}/v1`);
    expect(server.port).toBeGreaterThan(0);
  });

  it('lists one model, tollgate-scripted, through the client', async () => {
    const client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 });

    const models = [];
    for await (const model of client.models.list()) models.push(model.id);

    expect(models).toEqual(['tollgate-scripted']);
  });

  it('answers an unknown route with a 404 OpenAI-style error', async () => {
    const response = await fetch(`${server.baseURL}/embeddings`, { method: 'POST', body: '{}' });

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: expect.objectContaining({
        message: expect.stringContaining('/v1/embeddings'),
        type: 'invalid_request_error',
      }),
    });
  });

  it('answers a malformed JSON body with a 400 OpenAI-style error and records nothing', async () => {
    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"messages": [',
    });

    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/parse the JSON body/);
    expect(server.requests).toEqual([]);
  });

  it('answers a body without messages with a 400 naming the field', async () => {
    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test' }),
    });

    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("'messages'");
  });

  it('stops accepting connections once closed, and closing twice is harmless', async () => {
    const other = await startModelServer();
    const baseURL = other.baseURL;

    await other.close();
    await other.close();

    await expect(fetch(`${baseURL}/models`)).rejects.toThrow();
  });
});
