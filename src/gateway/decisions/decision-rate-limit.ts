import type { FastifyReply, FastifyRequest } from 'fastify';
import { approverOf } from '../auth/authenticate';
import { GatewayError } from '../http/gateway-error';

/** A hook on REST routes that decide. */
export type DecisionRateLimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Whether one more decision by a person fits in the window, and if not, when it will. */
export type RateLimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * The tighter limit on decisions, counted per person (not per channel or per address): a person's REST
 * calls, Slack clicks and email links share one budget, so clicking in Slack is no way around it.
 * Fixed windows, in memory.
 *
 * @example
 * const limit = new DecisionRateLimiter({ max: 60, timeWindowMs: 60_000 });
 * if (!limit.take('ana').allowed) refuse();
 */
export class DecisionRateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(private readonly options: { max: number; timeWindowMs: number; now?: () => number }) {}

  /** Counts one decision by `person` and says whether it is allowed. */
  take(person: string): RateLimitVerdict {
    const now = (this.options.now ?? Date.now)();
    if (this.windows.size > 10_000) this.forgetOld(now);
    let window = this.windows.get(person);
    if (!window || now - window.startedAt >= this.options.timeWindowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.set(person, window);
    }
    window.count += 1;
    if (window.count <= this.options.max) return { allowed: true };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((window.startedAt + this.options.timeWindowMs - now) / 1000)),
    };
  }

  private forgetOld(now: number): void {
    for (const [person, window] of this.windows) {
      if (now - window.startedAt >= this.options.timeWindowMs) this.windows.delete(person);
    }
  }
}

/** The REST form of the limit: a 429 with `retry-after` once the caller's person is over it. */
export function createDecisionRateLimit(limiter: DecisionRateLimiter): DecisionRateLimitHook {
  return async (request, reply) => {
    const verdict = limiter.take(approverOf(request));
    if (verdict.allowed) return;
    reply.header('retry-after', String(verdict.retryAfterSeconds));
    throw new GatewayError(
      'rate-limited',
      `Too many decisions by this approver; retry in ${verdict.retryAfterSeconds} s.`,
    );
  };
}
