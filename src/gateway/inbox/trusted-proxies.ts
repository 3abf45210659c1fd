import { BlockList, isIP } from 'node:net';

/** The proxies whose identity header is believed: addresses and networks, IPv4 and IPv6. */
export interface TrustedProxies {
  /** Whether a connection's peer address is one of them. */
  includes(address: string | undefined): boolean;
  /** How many entries were configured (none: no header is ever believed). */
  readonly size: number;
}

/**
 * Reads `TOLLGATE_TRUSTED_PROXIES`-style text: comma-separated addresses (`10.0.0.7`, `::1`) and networks in
 * CIDR form (`10.0.0.0/8`, `fd00::/8`). Throws a TypeError naming the entry that is neither. A peer address
 * written as IPv4-mapped IPv6 (`::ffff:10.0.0.7`, as Node reports IPv4 peers on a dual-stack socket) is
 * compared as the IPv4 address it is. Loopback is refused unless `allowLoopback` (tests, whose clients are local).
 *
 * @example
 * const proxies = parseTrustedProxies('10.0.0.0/8');
 * proxies.includes('::ffff:10.1.2.3'); // true
 */
export function parseTrustedProxies(
  text: string | undefined,
  options: { allowLoopback?: boolean } = {},
): TrustedProxies {
  const list = new BlockList();
  const entries = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefixText, ...rest] = entry.split('/');
    const plain = normaliseAddress(address);
    const family = isIP(plain);
    if (family === 0 || rest.length > 0) {
      throw new TypeError(`TOLLGATE_TRUSTED_PROXIES: "${entry}" is not an IP address or a CIDR network.`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefixText === undefined) {
      list.addAddress(plain, type);
      continue;
    }
    const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
      throw new TypeError(`TOLLGATE_TRUSTED_PROXIES: "${entry}" has no valid prefix length.`);
    }
    list.addSubnet(plain, prefix, type);
  }
  // Loopback is where every process of a machine sends from, a tool's among them (an unsandboxed command, one on the
  // worker's machine): a header believed from there is a header anyone on the machine can write.
  if (!options.allowLoopback && (list.check('127.0.0.1', 'ipv4') || list.check('::1', 'ipv6'))) {
    throw new TypeError(
      'TOLLGATE_TRUSTED_PROXIES includes loopback (127.0.0.1 or ::1), where any process on this machine, a tool ' +
        "among them, can send X-Forwarded-Email and decide as anyone. List only the proxy's own address on a network " +
        'no tool reaches (docs/approver-inbox.md).',
    );
  }
  return {
    size: entries.length,
    includes(peer) {
      if (peer === undefined || entries.length === 0) return false;
      const plain = normaliseAddress(peer);
      const family = isIP(plain);
      if (family === 0) return false;
      return list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

// `::ffff:10.0.0.7` is the IPv4 peer 10.0.0.7; brackets and a zone index are not part of the address compared.
function normaliseAddress(address: string): string {
  const bare = address
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  return mapped ? (mapped[1] as string) : bare;
}
