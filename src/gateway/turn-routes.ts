import type { FastifyInstance } from 'fastify';
import { approverOf } from './authenticate';
import type { GatewayContext } from './gateway-context';
import { batchDecisionBodySchema, emptyQuerySchema, startTurnBodySchema, turnParamsSchema } from './gateway-schemas';
import { parseInput } from './parse-input';

/** `POST /v1/turns`, `GET /v1/turns/:workflowId`, `POST /v1/turns/:workflowId/decisions`. */
export function registerTurnRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.post('/v1/turns', async (request, reply) => {
    parseInput(emptyQuerySchema, request.query, 'query');
    const body = parseInput(startTurnBodySchema, request.body, 'body');
    // The requester is whoever holds the token, so a later self-approval rule can trust it.
    const handle = await context.tollgate.startTurn({ ...body, requester: approverOf(request) });
    return reply
      .code(201)
      .header('location', `/v1/turns/${encodeURIComponent(handle.workflowId)}`)
      .send({ workflowId: handle.workflowId });
  });

  app.get('/v1/turns/:workflowId', async (request) => {
    parseInput(emptyQuerySchema, request.query, 'query');
    const { workflowId } = parseInput(turnParamsSchema, request.params, 'params');
    const state = await context.tollgate.state(workflowId);
    return { workflowId, ...state };
  });

  app.post('/v1/turns/:workflowId/decisions', { onRequest: context.decisionRateLimit }, async (request) => {
    parseInput(emptyQuerySchema, request.query, 'query');
    const { workflowId } = parseInput(turnParamsSchema, request.params, 'params');
    const { responses } = parseInput(batchDecisionBodySchema, request.body, 'body');
    const decisions = await context.decisions.decideBatch(approverOf(request), workflowId, responses);
    return { decisions };
  });
}
