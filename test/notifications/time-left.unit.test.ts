import { describeTimeLeft } from '../../src/notifications/time-left';

const expiresAt = '2026-01-02T12:00:00.000Z';
const before = (milliseconds: number) => new Date(Date.parse(expiresAt) - milliseconds);

describe('describeTimeLeft', () => {
  it('says "1 h" for a warning sent a moment after its timer, not "59 min"', () => {
    expect(describeTimeLeft(expiresAt, before(3_600_000 - 400))).toBe('1 h');
  });

  it('reads in seconds, minutes, hours and days', () => {
    expect(describeTimeLeft(expiresAt, before(30_000))).toBe('30 s');
    expect(describeTimeLeft(expiresAt, before(15 * 60_000))).toBe('15 min');
    expect(describeTimeLeft(expiresAt, before(90 * 60_000))).toBe('1 h 30 min');
    expect(describeTimeLeft(expiresAt, before(12 * 3_600_000 + 40 * 60_000))).toBe('13 h');
    expect(describeTimeLeft(expiresAt, before(3 * 86_400_000))).toBe('3 d');
  });

  it('never says less than a second, even once the time has passed', () => {
    expect(describeTimeLeft(expiresAt, before(-5_000))).toBe('1 s');
  });
});
