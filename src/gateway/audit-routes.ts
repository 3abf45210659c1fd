import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from './gateway-context';
import { auditQuerySchema } from './gateway-schemas';
import { parseInput } from './parse-input';

/** `GET /v1/audit`: every decision attempt, refused ones included. */
export function registerAuditRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.get('/v1/audit', async (request) => {
    const filter = parseInput(auditQuerySchema, request.query, 'query');
    return { attempts: context.audit.list(filter) };
  });
}
