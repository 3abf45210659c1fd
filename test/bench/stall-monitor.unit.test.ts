import { blockedMsOf } from '../../bench/stall-monitor';

// A burst's worker reports each pause of its main thread (bench/stall-monitor.ts), to set beside timed-out tasks.
describe('blockedMsOf', () => {
  it('says how long a timer was held past its time, from the threshold up', () => {
    expect(blockedMsOf(1_000, 1_100, 100, 200)).toBeUndefined(); // on time
    expect(blockedMsOf(1_000, 1_299, 100, 200)).toBeUndefined(); // 199 ms late: under the threshold
    expect(blockedMsOf(1_000, 1_300, 100, 200)).toBe(200);
    expect(blockedMsOf(1_000, 13_100, 100, 200)).toBe(12_000);
  });
});
