import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Requests seen by a {@link CountingProxy}, by HTTP method (`PUT`, `GET`, `HEAD`, …). */
export type RequestCounts = Record<string, number>;

/**
 * A plain HTTP proxy in front of one server that counts the requests passing through it, by method: the content-store
 * figure points a worker's S3 endpoint at it to count S3 requests per turn. Requests and answers pass unchanged (the
 * Host header too, so that signed requests still verify).
 */
export class CountingProxy {
  private constructor(
    private readonly seen: { counts: RequestCounts },
    private readonly server: http.Server,
    /** `http://127.0.0.1:<port>`, to use instead of the target's endpoint. */
    readonly endpoint: string,
  ) {}

  /** Starts a proxy on a free loopback port in front of `target` (`http://host:port`). */
  static async start(target: string): Promise<CountingProxy> {
    const to = new URL(target);
    const seen = { counts: {} as RequestCounts };
    const server = http.createServer((request, response) => {
      const method = request.method ?? '?';
      seen.counts[method] = (seen.counts[method] ?? 0) + 1;
      const forwarded = http.request(
        {
          hostname: to.hostname,
          port: to.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forwarded.on('error', (error) => {
        if (!response.headersSent) response.writeHead(502);
        response.end(error.message);
      });
      request.pipe(forwarded);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new CountingProxy(seen, server, `http://127.0.0.1:${port}`);
  }

  /** The requests counted since the last call, and starts counting afresh. */
  take(): RequestCounts {
    const counts = this.seen.counts;
    this.seen.counts = {};
    return counts;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
