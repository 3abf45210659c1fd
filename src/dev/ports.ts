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
