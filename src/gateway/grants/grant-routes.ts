import type { FastifyInstance } from 'fastify';
import { grantRequestSchema, termsOfGrantRequest } from '../../protocol';
import { requireScope } from '../auth/authenticate';
import { auditRefusedRequests } from '../decisions/refused-request-audit';
import type { GatewayContext } from '../gateway-context';
import { emptyQuerySchema, grantParamsSchema } from '../http/gateway-schemas';
import { parseInput } from '../http/parse-input';

/**
 * `GET /v1/grants` (the grants in force and those ended within a day), `POST /v1/grants` (give one without deciding an
 * approval), `DELETE /v1/grants/:grantId` (revoke). Every one needs `approvals:decide`: a grant is a decision about
 * calls to come, and revoking one only makes Tollgate ask again.
 */
export function registerGrantRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.get('/v1/grants', async (request) => {
    requireScope(request, 'approvals:decide');
    parseInput(emptyQuerySchema, request.query, 'query');
    return { grants: await context.grants.list() };
  });

  // Refusals before the grants (no token, a token that may not decide, a limit, a bad body) are audited like every
  // refused attempt; what the grants refuse themselves they keep.
  const refusedGrants = auditRefusedRequests(context.decisions, 'rest', () => ({
    request: { approved: true },
    grant: { action: 'grant' },
  }));
  const refusedRevocations = auditRefusedRequests(context.decisions, 'rest', (request) => {
    const params = grantParamsSchema.safeParse(request.params);
    return {
      request: { approved: false, ...(params.success && { approvalId: `grant:${params.data.grantId}` }) },
      grant: { action: 'revoke', ...(params.success && { grantId: params.data.grantId }) },
    };
  });

  app.post('/v1/grants', { onRequest: context.decisionRateLimit, onError: refusedGrants }, async (request, reply) => {
    const caller = requireScope(request, 'approvals:decide');
    parseInput(emptyQuerySchema, request.query, 'query');
    const body = parseInput(grantRequestSchema, request.body, 'body');
    const grant = await context.grants.give(
      { person: caller.person, identity: `token:${caller.person}` },
      termsOfGrantRequest(body),
    );
    return reply.code(201).send(grant);
  });

  app.delete(
    '/v1/grants/:grantId',
    { onRequest: context.decisionRateLimit, onError: refusedRevocations },
    async (request) => {
      const caller = requireScope(request, 'approvals:decide');
      parseInput(emptyQuerySchema, request.query, 'query');
      const { grantId } = parseInput(grantParamsSchema, request.params, 'params');
      return context.grants.revoke({ person: caller.person, identity: `token:${caller.person}` }, grantId);
    },
  );
}
