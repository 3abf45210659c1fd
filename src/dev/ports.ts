import { connect as connectHttp2 } from 'node:http2';
import { createServer, Socket } from 'node:net';

/** A TCP port on `ip` that nothing listened on a moment ago (the OS picks it). */
export function findFreePort(ip: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: ip, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => (port ? resolve(port) : reject(new Error(`Could not find a free port on ${ip}.`))));
    });
  });
}

/** True when `ip:port` can be bound now; false when something already listens there. */
export function isPortFree(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(false);
      else reject(error);
    });
    server.listen({ host: ip, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** True when something accepts TCP connections on `host:port` within `timeoutMs`. */
export function acceptsConnections(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (accepted: boolean): void => {
      socket.destroy();
      resolve(accepted);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/**
 * True when the program on `host:port` completes an HTTP/2 handshake (sends its SETTINGS) within `timeoutMs`, as
 * every gRPC server does. Checked before a gRPC client is pointed there: a gRPC channel stuck mid-handshake with a
 * program that never answers keeps its socket open even after the channel is closed.
 */
export function completesHttp2Handshake(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const session = connectHttp2(`http://${host.includes(':') ? `[${host}]` : host}:${port}`);
    const done = (answered: boolean): void => {
      clearTimeout(timer);
      session.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    session.once('remoteSettings', () => done(true));
    session.once('error', () => done(false));
    session.once('close', () => done(false));
  });
}

/**
 * Whether a server's output (or an error that carries it) says a port it was given was taken by the time it bound
 * it: a port found free is only free until someone binds it, and any process's outgoing connection may get it.
 */
export function saysAddressInUse(text: string): boolean {
  return /address already in use/i.test(text);
}

/**
 * Runs `start` again while it fails for a passing reason (`passing`): another process took a port it picked before it
 * bound it, or the server crashed while it started. At most `attempts` times in all; `onRetry` hears of each new try
 * and the failure that caused it. Any other failure, and the last, is thrown as it is.
 */
export async function startAgainWhile<T>(
  start: () => Promise<T>,
  passing: (error: unknown) => boolean,
  { attempts = 3, onRetry }: { attempts?: number; onRetry?: (error: unknown) => void } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !passing(error)) throw error;
      onRetry?.(error);
    }
  }
}
