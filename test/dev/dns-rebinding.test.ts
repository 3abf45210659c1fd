import Fastify from 'fastify';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startChatExample } from '../../src/dev/serve-chat-example';
import { answerOnlyOwnHost, isOwnLocalHost } from '../../src/gateway/dev-gateway';

// Issue 33: the dev chat page handed its token to any Host, and the dev gateway answered any Host, so a page whose
// name was rebound to 127.0.0.1 in the developer's browser could read the token and decide.

/** A GET with a Host header of the test's choice (fetch does not let a page set one; a rebinding page's is its own). */
function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers: { host } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

describe('the dev servers and DNS rebinding', () => {
  it('accepts only loopback names with the right port as Host', () => {
    expect(isOwnLocalHost('127.0.0.1:8788', 8788)).toBe(true);
    expect(isOwnLocalHost('LOCALHOST:8788', 8788)).toBe(true);
    expect(isOwnLocalHost('[::1]:8788', 8788)).toBe(true);
    expect(isOwnLocalHost('rebind.attacker.example:8788', 8788)).toBe(false);
    expect(isOwnLocalHost('127.0.0.1:8789', 8788)).toBe(false);
    expect(isOwnLocalHost('127.0.0.1', 8788)).toBe(false);
    expect(isOwnLocalHost(undefined, 8788)).toBe(false);
  });

  it('the example chat page gives its token only to a request addressed to it by its own name', async () => {
    const token = 'dev-token-that-decides-0123456789';
    const example = await startChatExample({ gatewayUrl: 'http://127.0.0.1:1', token });
    try {
      const port = Number(new URL(example.url).port);
      const own = await get(port, '/', `127.0.0.1:${port}`);
      expect(own.status).toBe(200);
      expect(own.body).toContain(token);
      const rebound = await get(port, '/', `rebind.attacker.example:${port}`);
      expect(rebound.status).toBe(421);
      expect(rebound.body).not.toContain(token);
      expect((await get(port, '/app.js', `rebind.attacker.example:${port}`)).status).toBe(421);
    } finally {
      await example.close();
    }
  });

  it('the dev gateway answers only its own Host, before anything else runs', async () => {
    const app = Fastify();
    let reached = 0;
    app.get('/v1/approvals', async () => {
      reached++;
      return { ok: true };
    });
    answerOnlyOwnHost(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      expect((await get(port, '/v1/approvals', `localhost:${port}`)).status).toBe(200);
      const rebound = await get(port, '/v1/approvals', `rebind.attacker.example:${port}`);
      expect(rebound.status).toBe(421);
      expect(reached).toBe(1);
    } finally {
      await app.close();
    }
  });
});
