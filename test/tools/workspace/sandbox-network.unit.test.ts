import {
  allowedRangesFromEnvironment,
  decidersFromEnvironment,
  deniedRanges,
  sandboxRoutes,
} from '../../../src/tools/workspace/sandbox-network';

describe('the routes of a sandbox with the network on', () => {
  it('sends private, link-local and reserved ranges into a blackhole, and the machine behind slirp too', () => {
    const routes = sandboxRoutes([], []);
    for (const range of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'])
      expect(routes).toContain(`route replace blackhole ${range}`);
    expect(routes.at(-1)).toBe('route replace blackhole 10.0.2.2/32');
    expect(routes).toHaveLength(deniedRanges.length + 1);
  });

  it('lets an allowed range through but never a denied address inside it, whatever the order given', () => {
    const routes = sandboxRoutes(['10.20.0.0/16', '10.20.0.5/32'], ['10.20.0.5', '192.0.2.7', '172.18.0.0/16']);
    const allowAt = routes.indexOf('route replace 10.20.0.0/16 via 10.0.2.2 dev tap0');
    const denyAt = routes.indexOf('route replace blackhole 10.20.0.5/32');
    expect(allowAt).toBeGreaterThan(routes.indexOf('route replace blackhole 10.0.0.0/8'));
    // The allowed /32 is replaced by the denied one after it: the decider wins.
    expect(denyAt).toBeGreaterThan(routes.indexOf('route replace 10.20.0.5/32 via 10.0.2.2 dev tap0'));
    expect(routes).toContain('route replace blackhole 192.0.2.7/32');
    expect(routes).toContain('route replace blackhole 172.18.0.0/16');
  });

  it('writes a range from its first address, as ip route takes it', () => {
    expect(sandboxRoutes(['10.20.30.40/16', '8.8.8.8/32', '0.0.0.0/0'], ['172.18.3.4/16'])).toEqual(
      expect.arrayContaining([
        'route replace 10.20.0.0/16 via 10.0.2.2 dev tap0',
        'route replace 8.8.8.8/32 via 10.0.2.2 dev tap0',
        'route replace 0.0.0.0/0 via 10.0.2.2 dev tap0',
        'route replace blackhole 172.18.0.0/16',
      ]),
    );
  });

  it('ignores what is not an IPv4 address or range among the denied (names are resolved before)', () => {
    expect(sandboxRoutes([], ['temporal', '::1', '10.1.1.1/40'])).toEqual(sandboxRoutes([], []));
  });

  it('refuses an allowed range that is not IPv4 CIDR', () => {
    expect(() => sandboxRoutes(['10.0.0.0'], [])).toThrow('takes IPv4 ranges such as 10.20.0.0/16, got "10.0.0.0"');
    expect(() => allowedRangesFromEnvironment({ TOLLGATE_TOOL_NETWORK_ALLOW: '10.1.0.0/16, fd00::/8' })).toThrow(
      'Workspace tools: TOLLGATE_TOOL_NETWORK_ALLOW takes IPv4 ranges such as 10.20.0.0/16, got "fd00::/8".',
    );
    expect(allowedRangesFromEnvironment({ TOLLGATE_TOOL_NETWORK_ALLOW: ' 10.1.0.0/16 ,,192.168.7.0/24' })).toEqual([
      '10.1.0.0/16',
      '192.168.7.0/24',
    ]);
  });

  it('names Temporal, the gateway and the store endpoint of the environment as deciders', () => {
    expect(
      decidersFromEnvironment({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TOLLGATE_GATEWAY_URL: 'https://gateway.example.com/tollgate',
        AWS_ENDPOINT_URL_S3: 'http://10.9.8.7:8333',
        AWS_ENDPOINT_URL: 'not a url',
      }),
    ).toEqual(['temporal', 'gateway.example.com', '10.9.8.7']);
    expect(decidersFromEnvironment({})).toEqual([]);
  });
});
