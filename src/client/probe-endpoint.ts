import net from 'node:net';
import tls from 'node:tls';

/** What answers at a host and port, below gRPC: enough to tell a wrong address from a TLS mismatch. */
export type EndpointProbe =
  | { type: 'not-found'; detail: string }
  | { type: 'refused'; detail: string }
  | { type: 'no-answer'; detail: string }
  | { type: 'open'; speaksTls: boolean };

/** Host and port of a `host:port` address (IPv6 in brackets); Temporal's port when none is given. */
export function hostAndPort(address: string): { host: string; port: number } {
  const url = new URL(`grpc://${address}`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: url.port ? Number(url.port) : 7233 };
}

/**
 * Opens a TCP connection to `address` and, when it opens, tries a TLS handshake without checking the
 * certificate. Never throws: every outcome is a value.
 */
export async function probeEndpoint(address: string, timeoutMs = 3_000): Promise<EndpointProbe> {
  let target: { host: string; port: number };
  try {
    target = hostAndPort(address);
  } catch {
    return { type: 'not-found', detail: `"${address}" is not a host:port address` };
  }
  const tcp = await attempt(() => net.connect({ host: target.host, port: target.port }), 'connect', timeoutMs);
  if (tcp.type === 'error') {
    if (tcp.code === 'ENOTFOUND' || tcp.code === 'EAI_AGAIN' || tcp.code === 'EAI_NONAME')
      return { type: 'not-found', detail: `the host "${target.host}" cannot be resolved` };
    if (tcp.code === 'ECONNREFUSED') return { type: 'refused', detail: `nothing listens on ${address}` };
    return { type: 'no-answer', detail: `${address} did not accept a connection (${tcp.code ?? 'error'})` };
  }
  if (tcp.type === 'timeout') {
    return { type: 'no-answer', detail: `${address} did not answer within ${timeoutMs / 1000} s` };
  }
  const handshake = await attempt(
    () =>
      tls.connect({
        host: target.host,
        port: target.port,
        ...(net.isIP(target.host) === 0 && { servername: target.host }),
        ALPNProtocols: ['h2'],
        rejectUnauthorized: false,
      }),
    'secureConnect',
    timeoutMs,
  );
  return { type: 'open', speaksTls: handshake.type === 'ok' };
}

async function attempt(
  open: () => net.Socket,
  readyEvent: 'connect' | 'secureConnect',
  timeoutMs: number,
): Promise<{ type: 'ok' } | { type: 'timeout' } | { type: 'error'; code?: string }> {
  return new Promise((resolve) => {
    const socket = open();
    const finish = (outcome: { type: 'ok' } | { type: 'timeout' } | { type: 'error'; code?: string }) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ type: 'timeout' }), timeoutMs);
    socket.once(readyEvent, () => finish({ type: 'ok' }));
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ type: 'error', code: error.code }));
    socket.once('close', () => finish({ type: 'error', code: 'ECONNRESET' }));
  });
}
