/**
 * Requests per user per minute, counted in fixed windows in this process. A chat makes a request per message and
 * per decision, so the default is generous; what it stops is a script hammering the model on someone's token.
 */
export class ChatRateLimit {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts a request; returns the seconds to wait when over the limit, undefined when allowed. */
  take(user: string, now = Date.now()): number | undefined {
    let window = this.windows.get(user);
    if (!window || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.set(user, window);
      if (this.windows.size > 10_000) this.forgetOld(now);
    }
    window.count += 1;
    if (window.count <= this.max) return undefined;
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
  }

  private forgetOld(now: number): void {
    for (const [user, window] of this.windows) if (now - window.startedAt >= this.windowMs) this.windows.delete(user);
  }
}
