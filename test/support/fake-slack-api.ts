import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call the fake received, as Slack would have read it. */
export interface FakeSlackCall {
  /** The Web API method, such as `chat.postMessage`. */
  method: string;
  /** The bearer token it carried (or the `token` argument). */
  token: string | undefined;
  /** Its arguments, with JSON-encoded values (`blocks`) decoded. */
  args: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** What the fake answered. */
  response?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** How the next calls fail: an HTTP 500, or Slack's `{ ok: false, error: 'ratelimited' }`. */
export type FakeSlackFailure = 'http-500' | 'ratelimited';

/** A stand-in for the Slack Web API on a random local port. */
export interface FakeSlackApi {
  /** The base URL to give `WebClient` as `slackApiUrl`. */
  url: string;
  /** Every call, in order, including failed ones. */
  calls: FakeSlackCall[];
  /** Calls of one method. */
  callsOf(method: string): FakeSlackCall[];
  /** Makes the next `count` calls fail as `failure` says. */
  failNext(count: number, failure?: FakeSlackFailure): void;
  close(): Promise<void>;
}

const supportedMethods = new Set(['chat.postMessage', 'chat.update', 'chat.postEphemeral']);

/**
 * Starts a fake Slack Web API that answers `chat.postMessage`, `chat.update` and `chat.postEphemeral`
 * the way Slack does (form or JSON bodies in; `{ ok: true, channel, ts, message }` out) and records
 * every call. Channel names are answered with an id, as Slack does, so callers must use the id it returns.
 */
export async function startFakeSlackApi(): Promise<FakeSlackApi> {
  const calls: FakeSlackCall[] = [];
  let failures: { left: number; failure: FakeSlackFailure } = { left: 0, failure: 'http-500' };
  let messageCount = 0;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.url ?? '').split('?')[0]?.replace(/^\/api\//, '') ?? '';
    const args = parseArguments(await readBody(request), request.headers['content-type']);
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const call: FakeSlackCall = { method, token: bearer ?? (args.token as string | undefined), args };
    calls.push(call);
    const reply = (status: number, body: Record<string, unknown>): void => {
      call.response = body;
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };

    if (failures.left > 0) {
      failures.left -= 1;
      if (failures.failure === 'http-500') return reply(500, { ok: false, error: 'internal_error' });
      return reply(200, { ok: false, error: 'ratelimited' });
    }
    if (request.method !== 'POST' || !supportedMethods.has(method))
      return reply(200, { ok: false, error: 'unknown_method' });
    if (!bearer && !args.token) return reply(200, { ok: false, error: 'not_authed' });
    if (typeof args.channel !== 'string' || args.channel === '')
      return reply(200, { ok: false, error: 'channel_not_found' });
    const channel = args.channel.startsWith('#') ? `C${args.channel.slice(1).toUpperCase()}` : args.channel;
    if (method === 'chat.postEphemeral') return reply(200, { ok: true, message_ts: `${Date.now() / 1000}` });
    if (method === 'chat.update' && typeof args.ts !== 'string')
      return reply(200, { ok: false, error: 'message_not_found' });
    messageCount += 1;
    const ts =
      method === 'chat.update'
        ? (args.ts as string)
        : `${1_700_000_000 + messageCount}.${String(messageCount).padStart(6, '0')}`;
    reply(200, { ok: true, channel, ts, message: { type: 'message', text: args.text, blocks: args.blocks ?? [], ts } });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/`,
    calls,
    callsOf: (method) => calls.filter((call) => call.method === method),
    failNext(count, failure = 'http-500') {
      failures = { left: count, failure };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

// `@slack/web-api` sends form bodies whose object values (blocks, metadata) are JSON strings; Slack decodes them.
function parseArguments(body: string, contentType: string | undefined): Record<string, unknown> {
  if (body === '') return {};
  if (contentType?.startsWith('application/json')) return JSON.parse(body) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    args[key] = /^[[{]/.test(value) ? tryJson(value) : value;
  }
  return args;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
