import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  createWorkspaceTools,
  describeToolSandbox,
  resolveSandbox,
  type CommandResult,
} from '../../../src/tools/workspace';
import { machineAddresses } from '../../../src/tools/workspace/sandbox-network';
import { temporalAddress } from '../../support/test-environment';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

// Issue 33: with TOLLGATE_TOOL_NETWORK=on an approved command reached Temporal, the dev gateway and the chat page on
// the machine's loopback and decided. The network is now the sandbox's own (slirp4netns), outbound only.

const sandboxWorks = resolveSandbox('auto', os.tmpdir()).type === 'bubblewrap';
const networkWorks = resolveSandbox({ mode: 'auto', network: true }, os.tmpdir()).type === 'bubblewrap';
/** Another network namespace, with a server in it, needs root (CI runs as root: `.ci/run` installs as root). */
const canMakeNamespaces = networkWorks && process.getuid?.() === 0 && spawnSync('ip', ['netns', 'list']).status === 0;

const connectTo = (host: string, port: number) =>
  `if (exec 3<>/dev/tcp/${host}/${port}) 2>/dev/null; then echo "reached ${host}:${port}"; else echo "refused ${host}:${port}"; fi`;

describe('bash with the tool network on', () => {
  let base: string;
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-network-choice-')));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('stops start-up, saying why, when the network of its own cannot be built', () => {
    const broken = path.join(base, 'slirp4netns');
    fs.writeFileSync(broken, '#!/bin/sh\necho \'open("/dev/net/tun"): Permission denied\' >&2\nexit 1\n', {
      mode: 0o755,
    });
    const attempt = () =>
      createWorkspaceTools({ root: base, sandbox: { mode: 'bubblewrap', network: true, slirp4netnsPath: broken } });
    if (!sandboxWorks) {
      expect(attempt).toThrow(/sandbox "bubblewrap" is required/);
      return;
    }
    expect(attempt).toThrow(
      /^Workspace tools: the tool network is on \(TOLLGATE_TOOL_NETWORK=on\) but the network cannot be built \(slirp4netns \(.*\) did not set up the network: open\("\/dev\/net\/tun"\): Permission denied/,
    );
    const missing = path.join(base, 'no-such-slirp4netns');
    expect(() =>
      createWorkspaceTools({ root: base, sandbox: { mode: 'bubblewrap', network: true, slirp4netnsPath: missing } }),
    ).toThrow(`the network cannot be built: slirp4netns not found (slirp4netns at ${missing})`);
  });

  it('leaves bash out under "auto" when the network cannot be built, and says so, never sharing the machine\'s', () => {
    const tools = createWorkspaceTools({
      root: base,
      sandbox: { network: true, slirp4netnsPath: path.join(base, 'no-such-slirp4netns') },
    });
    expect(tools.map((tool) => tool.name)).not.toContain('bash');
    expect(describeToolSandbox(tools)).toMatch(/^bash is left out: sandbox "auto" cannot use bubblewrap \(/);
  });
});

if (networkWorks) {
  describe('a sandboxed command with the network on', () => {
    let workspace: TestWorkspace;
    const run = async (command: string, on: TestWorkspace = workspace) =>
      (await on.call('bash', { command })) as CommandResult;

    beforeEach(() => {
      workspace = createTestWorkspace({ sandbox: { mode: 'bubblewrap', network: true } });
    });
    afterEach(() => workspace.remove());

    it('tells the operator and the model what it reaches', () => {
      expect(workspace.tool('bash').description).toContain(
        'public internet addresses are reachable (outbound only; private networks and this machine are not)',
      );
    });

    it("names slirp's DNS forwarder in its resolv.conf, and setting it up leaves nothing in the temporary folder", async () => {
      const leftBehind = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('tollgate-sandbox-dns-'));
      const before = new Set(leftBehind());
      const another = createTestWorkspace({ sandbox: { mode: 'bubblewrap', network: true } });
      try {
        const result = await run('grep -v "^#" /etc/resolv.conf', another);
        expect(result.stdout.trim()).toBe('nameserver 10.0.2.3');
      } finally {
        another.remove();
      }
      expect(leftBehind().filter((name) => !before.has(name))).toEqual([]);
    });

    it("cannot reach the test's Temporal server, a loopback server or the machine's own addresses", async () => {
      const [temporalHost, temporalPort] = temporalAddress().split(':') as [string, string];
      await withServer('0.0.0.0', async (port, connections) => {
        const targets: [string, number][] = [
          [temporalHost === 'localhost' ? '127.0.0.1' : temporalHost, Number(temporalPort)],
          ['127.0.0.1', port],
          ['10.0.2.2', port],
          ...machineAddresses().map((address): [string, number] => [address, port]),
        ];
        const result = await run(targets.map(([host, target]) => connectTo(host, target)).join('; '));
        expect(result.stdout).not.toContain('reached');
        expect(result.stdout.trim().split('\n')).toHaveLength(targets.length);
        expect(connections()).toBe(0);
      });
    });

    it("has no IPv6 way out: no IPv6 route but its own link-local, and neither ::1 nor the machine's IPv6 addresses answer", async () => {
      // slirp4netns runs without --enable-ipv6: the namespace gets no IPv6 address or route beyond the kernel's own.
      const ipv6 = fs.existsSync('/proc/net/if_inet6');
      await withServer(ipv6 ? '::' : '0.0.0.0', async (port, connections) => {
        const addresses = ipv6 ? ['::1', ...machineIpv6Addresses()] : [];
        const result = await run(
          [
            'ip -6 route show',
            'ip -6 route get 2001:4860:4860::8888 2>&1 || true',
            ...addresses.map((address) => connectTo(address, port)),
          ].join('; '),
        );
        const lines = result.stdout.trim().split('\n');
        const routes = lines.filter((line) => !/^(reached|refused) /.test(line) && !/unreachable/i.test(line));
        for (const route of routes) expect(route).toMatch(/^fe80::\/64 dev tap0 /);
        expect(result.stdout).toMatch(/Network is unreachable/);
        expect(result.stdout).not.toContain('reached');
        expect(lines.filter((line) => line.startsWith('refused '))).toHaveLength(addresses.length);
        expect(connections()).toBe(0);
      });
    });

    it('keeps its own loopback for servers it starts, and cannot change its routes', async () => {
      const result = await run(
        '(python3 -m http.server 8123 --bind 127.0.0.1 >/dev/null 2>&1 &); for i in $(seq 50); do ' +
          `(exec 3<>/dev/tcp/127.0.0.1/8123) 2>/dev/null && break; sleep 0.1; done; ${connectTo('127.0.0.1', 8123)}; ` +
          'ip route del blackhole 192.168.0.0/16 2>&1; ip route add default via 10.0.2.2 metric 1 2>&1; true',
      );
      expect(result.stdout).toContain('reached 127.0.0.1:8123');
      expect(result.stdout).toContain('Operation not permitted');
    });

    if (canMakeNamespaces) {
      it('reaches an outside address only when the operator allows its private range', async () => {
        await withNamespaceServer(async (address, port) => {
          expect((await run(connectTo(address, port))).stdout).toBe(`refused ${address}:${port}\n`);
          const allowed = createTestWorkspace({
            sandbox: { mode: 'bubblewrap', network: true, networkAllow: [`${address}/24`] },
          });
          try {
            expect((await run(connectTo(address, port), allowed)).stdout).toBe(`reached ${address}:${port}\n`);
          } finally {
            allowed.remove();
          }
          // A decider's address stays denied inside an allowed range.
          const denied = createTestWorkspace({
            sandbox: { mode: 'bubblewrap', network: true, networkAllow: [`${address}/24`], networkDeny: [address] },
          });
          try {
            expect((await run(connectTo(address, port), denied)).stdout).toBe(`refused ${address}:${port}\n`);
          } finally {
            denied.remove();
          }
        });
      });
    }
  });
}

/** A TCP server for the duration of `use`, counting the connections it gets. */
/** This machine's IPv6 addresses that a socket can name without a zone (link-local ones need the host's interface). */
function machineIpv6Addresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === 'IPv6' && !entry.internal && !entry.address.toLowerCase().startsWith('fe80'))
    .map((entry) => entry.address);
}

async function withServer(
  host: string,
  use: (port: number, connections: () => number) => Promise<void>,
): Promise<void> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  try {
    await use((server.address() as net.AddressInfo).port, () => count);
  } finally {
    await new Promise((done) => server.close(done));
  }
}

/**
 * A server in a network namespace of its own, joined to this machine by a veth pair: an address that is neither this
 * machine nor loopback, as a host on the internet would be (this machine has no internet).
 */
async function withNamespaceServer(use: (address: string, port: number) => Promise<void>): Promise<void> {
  const id = `tg${process.pid % 100000}`;
  const octet = 100 + (process.pid % 150);
  const address = `10.${octet}.77.2`;
  const ip = (...args: string[]) => {
    const result = spawnSync('ip', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr}`);
  };
  ip('netns', 'add', id);
  let child: ChildProcess | undefined;
  try {
    ip('link', 'add', `${id}h`, 'type', 'veth', 'peer', 'name', `${id}n`);
    ip('link', 'set', `${id}n`, 'netns', id);
    ip('addr', 'add', `10.${octet}.77.1/24`, 'dev', `${id}h`);
    ip('link', 'set', `${id}h`, 'up');
    ip('netns', 'exec', id, 'ip', 'addr', 'add', `${address}/24`, 'dev', `${id}n`);
    ip('netns', 'exec', id, 'ip', 'link', 'set', `${id}n`, 'up');
    child = spawn('ip', ['netns', 'exec', id, 'python3', '-m', 'http.server', '8080', '--bind', address], {
      stdio: 'ignore',
    });
    for (let attempt = 0; attempt < 50; attempt++) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = net.connect(8080, address, () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
      if (reached) break;
      await new Promise((done) => setTimeout(done, 100));
    }
    await use(address, 8080);
  } finally {
    child?.kill('SIGKILL');
    spawnSync('ip', ['link', 'del', `${id}h`]);
    spawnSync('ip', ['netns', 'del', id]);
  }
}
