import {
  connectionProblemOf,
  TemporalUnavailableError,
  temporalRetryNotice,
  temporalUnavailableMessage,
} from './connection-problem';

/** How a command waits for Temporal. */
export interface TemporalRetryOptions {
  /** Temporal's address, for the notice and the final error. */
  address: string;
  /** Where the notice goes. */
  print: (line: string) => void;
  /** Give up after this long (forever when absent), with an error naming the address and the fix. */
  giveUpAfterMs?: number;
  /** Pause between attempts. */
  intervalMs?: number;
}

/**
 * Runs Temporal calls again while Temporal is unavailable (down, restarting, not yet listening): one notice when the
 * wait starts, one line when it ends, and, when bounded, a `TemporalUnavailableError` naming the address and the fix
 * once the time is up. Any other error is thrown at once. One instance spans a command's calls, so their waits share
 * one bound and one notice.
 *
 * @example
 * const retry = new TemporalRetry({ address, print: console.error, giveUpAfterMs: 5_000 });
 * const tollgate = await retry.run(connectToTemporal);
 * const state = await retry.run(() => tollgate.state(workflowId));
 */
export class TemporalRetry {
  private readonly startedAt = Date.now();
  private waiting = false;

  constructor(private readonly options: TemporalRetryOptions) {}

  async run<T>(action: () => Promise<T>): Promise<T> {
    const { address, print, giveUpAfterMs, intervalMs = 1_000 } = this.options;
    for (;;) {
      try {
        const value = await action();
        if (this.waiting) print(`Connected to Temporal at ${address}.`);
        this.waiting = false;
        return value;
      } catch (error) {
        const detail = unavailableDetail(error);
        if (detail === undefined) throw error;
        const elapsed = Date.now() - this.startedAt;
        if (giveUpAfterMs !== undefined && elapsed + intervalMs > giveUpAfterMs) {
          const tried = this.waiting ? ` Tried for ${Math.round(elapsed / 1000)} s.` : '';
          throw new TemporalUnavailableError(temporalUnavailableMessage(address, detail) + tried, detail);
        }
        if (!this.waiting) print(temporalRetryNotice(address, detail));
        this.waiting = true;
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    }
  }
}

/** What an error says about Temporal being away, or undefined when it is about something else. */
function unavailableDetail(error: unknown): string | undefined {
  if ((error as Error | undefined)?.name === 'TemporalUnavailableError') {
    return (error as { detail?: string }).detail ?? (error as Error).message;
  }
  const problem = connectionProblemOf(error);
  return problem.type === 'unavailable' ? problem.detail : undefined;
}
