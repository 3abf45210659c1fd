import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { approverOf } from './authenticate';
import { GatewayError } from './gateway-error';

/** A hook on routes that decide. */
export type DecisionRateLimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The tighter limit on decisions, counted per approver (it runs after authentication) and shared by
 * every route that decides. Built on `createRateLimit` rather than `rateLimit()`, whose hook does
 * nothing on a request the address limit has already counted.
 */
export function createDecisionRateLimit(
  app: FastifyInstance,
  options: { max: number; timeWindow: number },
): DecisionRateLimitHook {
  const limit = app.createRateLimit({
    max: options.max,
    timeWindow: options.timeWindow,
    keyGenerator: (request) => `approver:${approverOf(request)}`,
  });
  return async (request, reply) => {
    const result = await limit(request);
    if (result.isAllowed || !result.isExceeded) return;
    reply.header('retry-after', String(result.ttlInSeconds));
    throw new GatewayError('rate-limited', `Too many decisions by this approver; retry in ${result.ttlInSeconds} s.`);
  };
}
