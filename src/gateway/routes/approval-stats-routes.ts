import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { durationToMilliseconds } from '../../protocol';
import { requireScope } from '../auth/authenticate';
import type { GatewayContext } from '../gateway-context';
import { GatewayError } from '../http/gateway-error';
import { parseInput } from '../http/parse-input';
import {
  computeApprovalStats,
  defaultStatsTurnLimit,
  defaultStatsWindowMs,
  maximumStatsTurnLimit,
  type StatsWindow,
} from '../stats/compute-approval-stats';

/** `GET /v1/approvals/stats` query. */
export const approvalStatsQuerySchema = z.strictObject({
  since: z
    .union([
      z.iso.datetime({ offset: true }),
      z.string().regex(/^\d{1,4}(ms|s|m|h|d)$/, 'an ISO 8601 time or a duration such as "24h" or "30d"'),
    ])
    .optional()
    .describe(
      'Start of the window: an ISO 8601 time, or a duration back from now such as "24h" or "30d" (default 7d).',
    ),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'a whole number of turns')
    .optional()
    .describe(`Most turns read, newest first (default ${defaultStatsTurnLimit}, at most ${maximumStatsTurnLimit}).`),
});

/**
 * `GET /v1/approvals/stats`: per tool and per approver, how approvals went in a window — from the turns Temporal's
 * visibility lists (closed in the window or still running) and the gateway's audit of refused attempts. The same
 * right as `GET /v1/audit` (`audit:read`). Bounded: at most `limit` turns are read, and `truncated` says when the
 * window held more.
 */
export function registerApprovalStatsRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.get('/v1/approvals/stats', async (request) => {
    requireScope(request, 'audit:read');
    const query = parseInput(approvalStatsQuerySchema, request.query, 'query');
    return computeApprovalStats(context, approvalWindowOf(query));
  });
}

/** The window a stats or suggestions query asks for: its start, now, and how many turns to read. */
export function approvalWindowOf(query: { since?: string; limit?: string }): StatsWindow {
  const until = new Date();
  const since = windowStart(query.since, until);
  const limit = query.limit === undefined ? defaultStatsTurnLimit : Number(query.limit);
  if (limit < 1 || limit > maximumStatsTurnLimit) {
    throw new GatewayError('invalid-request', `query.limit: between 1 and ${maximumStatsTurnLimit}.`, {
      errors: [{ field: 'query.limit', message: `between 1 and ${maximumStatsTurnLimit}` }],
    });
  }
  return { since, until, maxTurns: limit };
}

function windowStart(since: string | undefined, now: Date): Date {
  if (since === undefined) return new Date(now.getTime() - defaultStatsWindowMs);
  if (/^\d/.test(since) && !since.includes('T')) return new Date(now.getTime() - durationToMilliseconds(since));
  const start = new Date(since);
  if (start.getTime() > now.getTime()) {
    throw new GatewayError('invalid-request', 'query.since: the window must start in the past.', {
      errors: [{ field: 'query.since', message: 'must be in the past' }],
    });
  }
  return start;
}
