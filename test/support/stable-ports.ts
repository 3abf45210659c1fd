import { readFileSync } from 'node:fs';
import { isPortFree } from '../../src/dev/ports';

/**
 * The lowest port the OS hands out on its own (Linux's `ip_local_port_range`; 32768, its default, elsewhere).
 *
 * @example
 * ephemeralPortsFrom('32768\t60999\n'); // 32768
 */
export function ephemeralPortsFrom(localPortRange: string | undefined): number {
  const low = Number(localPortRange?.trim().split(/\s+/)[0]);
  return Number.isInteger(low) && low > 1024 ? low : 32768;
}

function localPortRange(): string | undefined {
  try {
    return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * A free TCP port below the OS's ephemeral range, for a server a test stops and starts again on the same port. A
 * port the OS picked (`findFreePort`) comes from the ephemeral range, where any outgoing connection of any process on
 * the machine may take it while the server is down: a restart then fails with EADDRINUSE. Below that range only a
 * program that asks for the port by number can. Ports up to 1,000 above the one returned stay below the range too
 * (the Temporal dev server's UI defaults to its port + 1,000).
 */
export async function freeStablePort(ip = '127.0.0.1'): Promise<number> {
  const highest = ephemeralPortsFrom(localPortRange()) - 1_001;
  const lowest = Math.min(10_000, highest - 1_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (await isPortFree(ip, port)) return port;
  }
  throw new Error(`No free port between ${lowest} and ${highest} on ${ip} after 100 tries.`);
}
