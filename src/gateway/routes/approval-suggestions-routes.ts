import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireScope } from '../auth/authenticate';
import type { GatewayContext } from '../gateway-context';
import { parseInput } from '../http/parse-input';
import { computeApprovalSuggestions } from '../suggestions/compute-approval-suggestions';
import { defaultSuggestionThresholds } from '../suggestions/suggest-approval-rules';
import { approvalStatsQuerySchema, approvalWindowOf } from './approval-stats-routes';

/** `GET /v1/approvals/suggestions` query: the stats' window, and how much history a suggestion needs. */
export const approvalSuggestionsQuerySchema = approvalStatsQuerySchema.extend({
  minApprovals: z
    .string()
    .regex(/^([1-9]\d{0,3})$/, 'a whole number from 1 to 9999')
    .optional()
    .describe(
      `Approvals a rule needs, every call it covers approved (default ${defaultSuggestionThresholds.minApprovals}).`,
    ),
  minPeople: z
    .string()
    .regex(/^([2-9]|1\d|20)$/, 'a whole number from 2 to 20')
    .optional()
    .describe(`Distinct people among the approvers (default ${defaultSuggestionThresholds.minPeople}, at least 2).`),
});

/**
 * `GET /v1/approvals/suggestions`: rules that would have saved asking in a window — a tool, or an argument pattern,
 * approved every time it asked, by at least two people — each with its evidence, the grant that would cover it and,
 * where the operator's policy file can say it, a policy snippet. Read from the same turns as the statistics, with the
 * same right (`audit:read`). Nothing is applied.
 */
export function registerApprovalSuggestionsRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.get('/v1/approvals/suggestions', async (request) => {
    requireScope(request, 'audit:read');
    const query = parseInput(approvalSuggestionsQuerySchema, request.query, 'query');
    return computeApprovalSuggestions(context, approvalWindowOf(query), {
      ...(query.minApprovals !== undefined && { minApprovals: Number(query.minApprovals) }),
      ...(query.minPeople !== undefined && { minPeople: Number(query.minPeople) }),
    });
  });
}
