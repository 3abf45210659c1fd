import { ephemeralPortsFrom } from './stable-ports';

describe('ephemeralPortsFrom', () => {
  it("reads the first number of Linux's ip_local_port_range", () => {
    expect(ephemeralPortsFrom('32768\t60999\n')).toBe(32768);
    expect(ephemeralPortsFrom('49152 65535')).toBe(49152);
  });

  it('falls back to 32768 when the range is missing or unreadable', () => {
    expect(ephemeralPortsFrom(undefined)).toBe(32768);
    expect(ephemeralPortsFrom('')).toBe(32768);
    expect(ephemeralPortsFrom('junk')).toBe(32768);
    expect(ephemeralPortsFrom('80 90')).toBe(32768);
  });
});
