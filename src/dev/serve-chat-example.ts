import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { isOwnLocalHost } from '../gateway/dev-gateway';

/** The example chat page, built and served. */
export interface ChatExample {
  url: string;
  close(): Promise<void>;
}

const page = (config: object) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tollgate chat</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
.message { margin: .75rem 0; padding: .5rem .75rem; border-radius: .5rem; overflow-wrap: anywhere; }
.message p { max-height: 24rem; overflow: auto; }
.message.queued { border: 1px dashed #8aa2d8; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 20rem; overflow: auto; }
.arguments { margin: .3rem 0; } .arguments div { display: flex; gap: .5rem; } .arguments dt { font-weight: 600; } .arguments dd { margin: 0; overflow-wrap: anywhere; }
.approval { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; } .approval label { font-size: 13px; color: #444; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
button:focus-visible, input:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 2px solid #1a5fd0; outline-offset: 2px; }
.message.user { background: #eef3ff; }
.message.assistant { background: #f6f6f6; }
.tool { border: 1px solid #ccc; border-radius: .4rem; padding: .4rem .6rem; margin: .4rem 0; background: #fff; }
.tool-approval-requested { border-color: #d08a00; }
.tool-output-denied { border-color: #b00020; }
.sub-agent-call { margin: .4rem 0 .4rem 1rem; border-left: 4px solid #8a8fb0; } .sub-agent-call.tool-waiting { border-color: #d08a00; border-left-color: #8a8fb0; }
.reasoning { color: #777; font-style: italic; }
.error { color: #b00020; overflow-wrap: anywhere; }
.hint, .status, .note { color: #666; font-size: 13px; }
form { display: flex; gap: .5rem; margin-top: 1rem; } form textarea { flex: 1; padding: .4rem; font: inherit; }
</style>
</head>
<body><div id="root"></div>
<script>window.tollgateChat = ${JSON.stringify(config).replace(/</g, '\\u003c')};</script>
<script src="/app.js"></script>
</body>
</html>`;

/**
 * Bundles `examples/chat/app.tsx` (React and `@ai-sdk/react`'s `useChat`) with esbuild and serves it on this
 * machine, configured to call the gateway at `gatewayUrl` with `token`. For development only: the page carries
 * the token, so it listens on 127.0.0.1 and answers only requests whose `Host` names it (`127.0.0.1:<port>`,
 * `localhost:<port>`): a DNS-rebinding page cannot read the token.
 *
 * @example
 * const example = await startChatExample({ gatewayUrl: 'http://127.0.0.1:8788', token });
 * console.log(example.url);
 */
export async function startChatExample(options: {
  gatewayUrl: string;
  token: string;
  port?: number;
  chatId?: string;
}): Promise<ChatExample> {
  const bundle = await build({
    entryPoints: [path.join(__dirname, '../../examples/chat/app.tsx')],
    bundle: true,
    write: false,
    // A classic script (the page loads it without type=module): with the package's explicit "type": "commonjs",
    // an ESM bundle ends in an `export` the browser refuses.
    format: 'iife',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]?.text ?? '';
  const server: Server = createServer((request, response) => {
    // The page carries a token: only to a request addressed to this server by its own name (no DNS rebinding).
    if (!isOwnLocalHost(request.headers.host, (server.address() as AddressInfo).port)) {
      response.writeHead(421, { 'content-type': 'text/plain' });
      return void response.end('Misdirected request: unknown Host.');
    }
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/app.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      return void response.end(script);
    }
    if (url.pathname !== '/') {
      response.writeHead(404, { 'content-type': 'text/plain' });
      return void response.end('Not found');
    }
    // One chat per ?chat= id, so a reload comes back to the same conversation.
    const chatId = url.searchParams.get('chat') ?? options.chatId ?? 'demo';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(page({ api: `${options.gatewayUrl}/api/chat`, token: options.token, chatId }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
