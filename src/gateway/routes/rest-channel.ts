import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../gateway-context';
import type { GatewayChannel } from '../gateway-options';
import { emptyQuerySchema } from '../http/gateway-schemas';
import { parseInput } from '../http/parse-input';
import { registerApprovalRoutes } from './approval-routes';
import { registerApprovalStatsRoutes } from './approval-stats-routes';
import { registerApprovalSuggestionsRoutes } from './approval-suggestions-routes';
import { registerAuditRoutes } from './audit-routes';
import { registerGrantRoutes } from '../grants/grant-routes';
import { openApiDocument } from './openapi-document';
import { registerTurnRoutes } from './turn-routes';

/**
 * The REST API as a gateway channel: turns (`/v1/turns`), approvals and decisions (`/v1/approvals`), the audit, the
 * approval statistics and suggestions, standing grants (`/v1/grants`) and `/openapi.json`, every route behind the gateway's bearer tokens.
 *
 * @example
 * const gateway = await createGateway({ tollgate, tokens, channels: [restChannel(), chatChannel({ tokens })] });
 */
export function restChannel(): GatewayChannel {
  return {
    name: 'rest',
    publicPaths: [],
    register(app: FastifyInstance, context: GatewayContext) {
      const document = openApiDocument();
      app.get('/openapi.json', async (request) => {
        parseInput(emptyQuerySchema, request.query, 'query');
        return document;
      });
      registerTurnRoutes(app, context);
      registerApprovalRoutes(app, context);
      registerAuditRoutes(app, context);
      registerApprovalStatsRoutes(app, context);
      registerGrantRoutes(app, context);
      registerApprovalSuggestionsRoutes(app, context);
    },
  };
}
