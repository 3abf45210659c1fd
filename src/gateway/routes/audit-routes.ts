import type { FastifyInstance } from 'fastify';
import { requireScope } from '../auth/authenticate';
import type { GatewayContext } from '../gateway-context';
import { auditQuerySchema } from '../http/gateway-schemas';
import { parseInput } from '../http/parse-input';

/**
 * `GET /v1/audit`: decision attempts, refused ones included, oldest first, a page at a time (`limit`, default 1000;
 * `next` in the answer is the `after` of the next page); the token needs `audit:read`.
 */
export function registerAuditRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.get('/v1/audit', async (request) => {
    requireScope(request, 'audit:read');
    const { after, limit, ...filter } = parseInput(auditQuerySchema, request.query, 'query');
    return context.audit.readPage(filter, {
      ...(after !== undefined && { after }),
      ...(limit !== undefined && { limit }),
    });
  });
}
