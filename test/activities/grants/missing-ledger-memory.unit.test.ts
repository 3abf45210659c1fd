import { MissingLedgerMemory } from '../../../src/activities/grants/missing-ledger-memory';

/** A memory on a clock the test moves. */
function memoryAt(forMs: number) {
  const clock = { now: 1_000 };
  return { clock, memory: new MissingLedgerMemory(forMs, () => clock.now) };
}

describe('MissingLedgerMemory', () => {
  it('remembers a missing ledger for its window, then claims again', () => {
    const { clock, memory } = memoryAt(2_000);
    expect(memory.remembersMissing()).toBe(false);
    memory.foundNoLedger(memory.claimSent());
    expect(memory.remembersMissing()).toBe(true);
    clock.now += 1_999;
    expect(memory.remembersMissing()).toBe(true);
    clock.now += 1;
    expect(memory.remembersMissing()).toBe(false);
  });

  it('forgets as soon as the worker hears of a grant', () => {
    const { memory } = memoryAt(2_000);
    memory.foundNoLedger(memory.claimSent());
    memory.heardOfGrant();
    expect(memory.remembersMissing()).toBe(false);
  });

  it('does not remember a "no ledger" answer to a claim sent before the worker heard of a grant', () => {
    const { memory } = memoryAt(2_000);
    const sent = memory.claimSent();
    memory.heardOfGrant();
    memory.foundNoLedger(sent);
    expect(memory.remembersMissing()).toBe(false);
    // A claim sent after it is remembered as usual.
    memory.foundNoLedger(memory.claimSent());
    expect(memory.remembersMissing()).toBe(true);
  });

  it('remembers nothing with a window of 0, and refuses a negative or non-finite one', () => {
    const { memory } = memoryAt(0);
    memory.foundNoLedger(memory.claimSent());
    expect(memory.remembersMissing()).toBe(false);
    expect(() => new MissingLedgerMemory(-1)).toThrow(RangeError);
    expect(() => new MissingLedgerMemory(Number.NaN)).toThrow(RangeError);
  });
});
