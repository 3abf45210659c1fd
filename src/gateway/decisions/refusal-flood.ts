import type { DecisionAttempt } from './decision-audit';

/** How many refusals alike are kept one by one in a window before the rest are counted into one line. */
export const refusalsKeptOneByOne = 10;

/** How long a window of refusals alike lasts (one minute). */
export const refusalWindowMs = 60_000;

// Keys are channel, cause and person: few by construction. Past this many, every other refusal shares one key.
const keyLimit = 1_000;

interface Window {
  startedAt: number;
  kept: number;
  /** The last refusal not kept one by one, and how many there were. */
  counted?: { attempt: DecisionAttempt; count: number; since: string };
  timer?: NodeJS.Timeout;
}

/**
 * Keeps a flood of refusals from growing the audit without bound. Refusals alike (one channel, one cause, one person,
 * or nobody for an attempt whose sender is not known) are kept one by one up to {@link refusalsKeptOneByOne} in a
 * window of {@link refusalWindowMs}; the rest of that window become one line, written when the window ends: the last
 * of them, with `coalesced: { count, since }`. The audit therefore holds at most that many lines plus one per key and
 * minute, however fast the requests come; nothing is dropped uncounted.
 *
 * @example
 * const flood = new RefusalFlood((attempt) => audit.record(attempt));
 * await flood.offer('slack|unauthorized|', attempt); // written now, or counted into the window's last line
 * await flood.flush(); // on close: every counted line is written
 */
export class RefusalFlood {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;
  private readonly keptOneByOne: number;
  private readonly now: () => number;

  constructor(
    private readonly write: (attempt: DecisionAttempt) => Promise<void>,
    options: { windowMs?: number; keptOneByOne?: number; now?: () => number } = {},
  ) {
    this.windowMs = options.windowMs ?? refusalWindowMs;
    this.keptOneByOne = options.keptOneByOne ?? refusalsKeptOneByOne;
    this.now = options.now ?? Date.now;
  }

  /** Writes `attempt` now if its window still keeps refusals one by one; otherwise counts it into the window's line. */
  async offer(key: string, attempt: DecisionAttempt): Promise<void> {
    const now = this.now();
    if (!this.windows.has(key) && this.windows.size >= keyLimit) await this.closeEnded(now);
    const chosen = this.windows.has(key) || this.windows.size < keyLimit ? key : '(other)';
    let window = this.windows.get(chosen);
    if (window && now - window.startedAt >= this.windowMs) {
      await this.close(chosen);
      window = undefined;
    }
    if (!window) {
      window = { startedAt: now, kept: 0 };
      this.windows.set(chosen, window);
    }
    if (window.kept < this.keptOneByOne) {
      window.kept += 1;
      await this.write(attempt);
      return;
    }
    window.counted = {
      attempt,
      count: (window.counted?.count ?? 0) + 1,
      since: window.counted?.since ?? attempt.at,
    };
    if (!window.timer) {
      const closing = chosen;
      window.timer = setTimeout(() => void this.close(closing), Math.max(0, window.startedAt + this.windowMs - now));
      // A pending summary never keeps the process alive; closing the gateway flushes it.
      window.timer.unref();
    }
  }

  /** Writes every counted line now (the gateway is closing). */
  async flush(): Promise<void> {
    await Promise.all([...this.windows.keys()].map((key) => this.close(key)));
  }

  private async closeEnded(now: number): Promise<void> {
    const ended = [...this.windows].filter(([, window]) => now - window.startedAt >= this.windowMs);
    await Promise.all(ended.map(([key]) => this.close(key)));
  }

  private async close(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (!window) return;
    this.windows.delete(key);
    if (window.timer) clearTimeout(window.timer);
    const counted = window.counted;
    if (!counted) return;
    await this.write({ ...counted.attempt, coalesced: { count: counted.count, since: counted.since } });
  }
}
