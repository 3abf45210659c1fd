import type { FastifyInstance } from 'fastify';
import { requireScope } from '../auth/authenticate';
import type { GatewayContext } from '../gateway-context';
import { auditQuerySchema } from '../http/gateway-schemas';
import { parseInput } from '../http/parse-input';

/** `GET /v1/audit`: every decision attempt, refused ones included; the token needs `audit:read`. */
export function registerAuditRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.get('/v1/audit', async (request) => {
    requireScope(request, 'audit:read');
    const filter = parseInput(auditQuerySchema, request.query, 'query');
    return { attempts: await context.audit.read(filter) };
  });
}
