import { promises as dns } from 'node:dns';
import net from 'node:net';
import os from 'node:os';

/**
 * What a sandboxed command may reach when the operator turns the network on: outbound connections to public
 * addresses, through slirp4netns, and nothing else. Denied always, whatever `allow` says: the machine's loopback
 * (not mapped in), the machine's own addresses, slirp's gateway to the machine, and the addresses of Temporal, the
 * gateway and the content store (`deny`). Denied unless `allow` names them: private, shared, link-local (cloud
 * metadata), documentation, multicast and reserved ranges, where the deciders of a deployment live.
 */
export interface SandboxNetworkRules {
  /** IPv4 ranges (CIDR) in the denied ranges a command may still reach, e.g. an internal package registry. */
  allow: string[];
  /** Host names, IPv4 addresses or ranges a command never reaches: the deciders. Names are resolved on every call. */
  deny: string[];
}

/** The address slirp4netns gives the machine inside the namespace; `--disable-host-loopback` refuses it too. */
export const slirpGatewayAddress = '10.0.2.2';

/**
 * IPv4 ranges no command reaches unless the operator allows them (RFC 6890 special-purpose and private). Loopback is
 * the namespace's own: a command's local servers answer there, the machine's are not mapped in.
 */
export const deniedRanges: readonly string[] = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/**
 * The `ip -batch` lines that set a sandbox's routes: the denied ranges into a blackhole, the allowed ranges back
 * through slirp's gateway, then every denied address (`denyAddresses`: the machine's own, the deciders') into a
 * blackhole over both. Longest prefix wins, and the last `replace` of an equal prefix wins, so a denied address is
 * never reachable, even when an allowed range holds it. IPv4 only: slirp4netns gives the namespace no IPv6.
 *
 * @throws TypeError for an allowed range that is not IPv4 CIDR.
 *
 * @example
 * sandboxRoutes(['10.20.0.0/16'], ['10.20.0.5']);
 * // [..., 'route replace blackhole 10.0.0.0/8', 'route replace 10.20.0.0/16 via 10.0.2.2 dev tap0',
 * //  'route replace blackhole 10.0.2.2/32', 'route replace blackhole 10.20.0.5/32']
 */
export function sandboxRoutes(allow: readonly string[], denyAddresses: readonly string[]): string[] {
  const routes = deniedRanges.map((range) => `route replace blackhole ${range}`);
  for (const range of allow) routes.push(`route replace ${checkedRange(range)} via ${slirpGatewayAddress} dev tap0`);
  const denied = new Set([`${slirpGatewayAddress}/32`]);
  for (const entry of denyAddresses) {
    if (net.isIPv4(entry)) denied.add(`${entry}/32`);
    else if (isIpv4Range(entry)) denied.add(checkedRange(entry));
  }
  for (const range of denied) routes.push(`route replace blackhole ${range}`);
  return routes;
}

/**
 * The IPv4 addresses a command must never reach right now: the machine's own (every interface) and those of
 * `rules.deny`, names resolved now (a name that does not resolve is skipped: the command cannot resolve it either,
 * through the same resolver).
 */
export async function deniedAddresses(rules: SandboxNetworkRules): Promise<string[]> {
  const addresses = new Set(machineAddresses());
  await Promise.all(
    rules.deny.map(async (entry) => {
      if (net.isIPv4(entry) || isIpv4Range(entry)) {
        addresses.add(entry);
        return;
      }
      if (net.isIP(entry) !== 0) return;
      const found = await dns.lookup(entry, { all: true, family: 4 }).catch(() => []);
      for (const { address } of found) addresses.add(address);
    }),
  );
  return [...addresses];
}

/** The machine's own IPv4 addresses, on every interface. */
export function machineAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry.address);
}

/**
 * The deciders a worker's environment names, as host names or addresses: Temporal (`TEMPORAL_ADDRESS`), the gateway
 * (`TOLLGATE_GATEWAY_URL`) and the S3 content store's endpoint (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`).
 */
export function decidersFromEnvironment(environment: NodeJS.ProcessEnv): string[] {
  const hosts: string[] = [];
  const temporal = environment.TEMPORAL_ADDRESS?.trim();
  if (temporal) hosts.push(hostOf(`tcp://${temporal}`));
  for (const name of ['TOLLGATE_GATEWAY_URL', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL']) {
    const url = environment[name]?.trim();
    if (url) hosts.push(hostOf(url));
  }
  return hosts.filter((host) => host !== '');
}

/** IPv4 ranges from `TOLLGATE_TOOL_NETWORK_ALLOW` (comma-separated CIDR), checked. */
export function allowedRangesFromEnvironment(environment: NodeJS.ProcessEnv): string[] {
  return (environment.TOLLGATE_TOOL_NETWORK_ALLOW ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => checkedRange(entry, 'TOLLGATE_TOOL_NETWORK_ALLOW'));
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return '';
  }
}

/** The range, checked, written from its first address (`10.1.2.3/16` is `10.1.0.0/16`), as `ip route` takes it. */
function checkedRange(range: string, setting = 'network allow'): string {
  if (!isIpv4Range(range)) {
    throw new TypeError(`Workspace tools: ${setting} takes IPv4 ranges such as 10.20.0.0/16, got "${range}".`);
  }
  const [address, bits] = range.split('/') as [string, string];
  const value = address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
  const mask = Number(bits) === 0 ? 0 : (0xffffffff << (32 - Number(bits))) >>> 0;
  const first = (value & mask) >>> 0;
  return `${[24, 16, 8, 0].map((shift) => (first >>> shift) & 255).join('.')}/${bits}`;
}

function isIpv4Range(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  return (
    rest.length === 0 &&
    address !== undefined &&
    net.isIPv4(address) &&
    bits !== undefined &&
    /^\d{1,2}$/.test(bits) &&
    Number(bits) <= 32
  );
}
