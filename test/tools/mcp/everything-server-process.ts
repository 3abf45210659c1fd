import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

// @modelcontextprotocol/server-everything (the MCP project's own test server), run over Streamable HTTP.
const serverScript = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** A TCP port nothing listens on just now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Starts the everything server on `port`; resolves once it listens. */
export async function startEverythingServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [serverScript, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the everything server exited (${code}): ${seen}`)));
  });
  return child;
}

/** Stops a server started by {@link startEverythingServer} and waits until it is gone. */
export async function stopEverythingServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill();
  });
}
