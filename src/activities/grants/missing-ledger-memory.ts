/** How long a worker remembers, by default, that its task queue has no grant ledger (docs/asking-less.md). */
export const defaultMissingLedgerMemoryMs = 2_000;

/**
 * A worker's short memory that its task queue has no grant ledger, so that a burst of calls that ask does not send
 * each one's claim to a ledger that does not exist (a round trip to Temporal per call). Remembering wrongly only ever
 * asks a person where a grant would have let the call through, never the other way round, and not for long: the
 * memory lasts `forMs` from the last claim that found no ledger, and ends at once when this worker hears of a grant
 * (it checks a grant's terms for the ledger, or a claim finds the ledger). A claim that was already on its way when
 * the worker heard of a grant does not bring the memory back.
 *
 * @example
 * const memory = new MissingLedgerMemory(2_000);
 * if (!memory.remembersMissing()) { const sent = memory.claimSent(); … if (noLedger) memory.foundNoLedger(sent); }
 */
export class MissingLedgerMemory {
  private missingUntil = Number.NEGATIVE_INFINITY;
  private heardOfGrants = 0;

  constructor(
    /** How long a "no ledger" answer is remembered; 0 remembers nothing (every call that asks claims). */
    private readonly forMs: number = defaultMissingLedgerMemoryMs,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isFinite(forMs) || forMs < 0) throw new RangeError(`forMs must be 0 or more, got ${forMs}.`);
  }

  /** Whether a claim can be skipped: a recent claim found no ledger, and the worker has heard of no grant since. */
  remembersMissing(): boolean {
    return this.now() < this.missingUntil;
  }

  /** Call as a claim is sent; give what it returns to {@link foundNoLedger} if the claim finds no ledger. */
  claimSent(): number {
    return this.heardOfGrants;
  }

  /** A claim sent at `sent` found no ledger: remember it, unless the worker has heard of a grant since it was sent. */
  foundNoLedger(sent: number): void {
    if (sent !== this.heardOfGrants || this.forMs === 0) return;
    this.missingUntil = this.now() + this.forMs;
  }

  /** The worker heard of a grant on its task queue: claim again from now on. */
  heardOfGrant(): void {
    this.heardOfGrants += 1;
    this.missingUntil = Number.NEGATIVE_INFINITY;
  }
}
