import { parseTrustedProxies } from '../../../src/gateway/inbox/trusted-proxies';

describe('parseTrustedProxies', () => {
  it('refuses loopback, where any process of the machine (a tool among them) sends from, however it is written', () => {
    for (const text of ['10.0.0.0/8,127.0.0.1', '127.0.0.0/8', '::1', '0.0.0.0/0', '::/0', '::ffff:127.0.0.1'])
      expect(() => parseTrustedProxies(text)).toThrow(/^TOLLGATE_TRUSTED_PROXIES includes loopback/);
    expect(parseTrustedProxies('10.0.0.0/8,192.168.1.7').size).toBe(2);
  });

  it('trusts the listed addresses and networks, IPv4-mapped peers as their IPv4 address', () => {
    const proxies = parseTrustedProxies(' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1', { allowLoopback: true });
    expect(proxies.size).toBe(4);
    expect(proxies.includes('10.200.3.4')).toBe(true);
    expect(proxies.includes('::ffff:10.1.2.3')).toBe(true);
    expect(proxies.includes('192.168.1.7')).toBe(true);
    expect(proxies.includes('fd12::5')).toBe(true);
    expect(proxies.includes('::1')).toBe(true);
  });

  it('trusts nobody else, and nobody at all when unset', () => {
    const proxies = parseTrustedProxies('10.0.0.0/8,192.168.1.7');
    expect(proxies.includes('11.0.0.1')).toBe(false);
    expect(proxies.includes('192.168.1.8')).toBe(false);
    expect(proxies.includes('::ffff:192.168.1.8')).toBe(false);
    expect(proxies.includes('fe80::1')).toBe(false);
    expect(proxies.includes(undefined)).toBe(false);
    expect(proxies.includes('not an address')).toBe(false);
    const none = parseTrustedProxies(undefined);
    expect(none.size).toBe(0);
    expect(none.includes('127.0.0.1')).toBe(false);
  });

  it('refuses an entry that is not an address or a network, naming it', () => {
    expect(() => parseTrustedProxies('10.0.0.0/8,proxy.internal')).toThrow(/"proxy.internal"/);
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(/"10.0.0.0\/33"/);
    expect(() => parseTrustedProxies('10.0.0.0/8/1')).toThrow(/not an IP address/);
  });
});
