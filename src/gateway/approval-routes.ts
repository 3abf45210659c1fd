import type { FastifyInstance } from 'fastify';
import type { AgentTurnState } from '../protocol';
import { approverOf } from './authenticate';
import type { GatewayContext } from './gateway-context';
import { GatewayError } from './gateway-error';
import {
  approvalParamsSchema,
  decisionBodySchema,
  emptyQuerySchema,
  listApprovalsQuerySchema,
} from './gateway-schemas';
import { listPendingApprovals } from './list-pending-approvals';
import { parseInput } from './parse-input';
import { toGatewayError } from './to-gateway-error';

/** `GET /v1/approvals`, `GET /v1/approvals/:approvalId`, `POST /v1/approvals/:approvalId/decision`. */
export function registerApprovalRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.get('/v1/approvals', async (request) => {
    const filter = parseInput(listApprovalsQuerySchema, request.query, 'query');
    return { approvals: await listPendingApprovals(context.tollgate, filter) };
  });

  app.get('/v1/approvals/:approvalId', async (request) => {
    parseInput(emptyQuerySchema, request.query, 'query');
    const { approvalId } = parseInput(approvalParamsSchema, request.params, 'params');
    const unknown = () => new GatewayError('unknown-approval', `Unknown approvalId "${approvalId}".`, { approvalId });
    let workflowId: string;
    let state: AgentTurnState;
    try {
      workflowId = await context.tollgate.workflowIdOf(approvalId);
      state = await context.tollgate.state(workflowId);
    } catch (error) {
      const problem = toGatewayError(error);
      throw problem.kind === 'unknown-turn' || problem.kind === 'unknown-approval' ? unknown() : error;
    }
    const pending = state.pending.find((approval) => approval.approvalId === approvalId);
    if (pending) return { status: 'pending', workflowId, ...pending };
    const decided = state.audit.find((entry) => entry.approvalId === approvalId);
    if (decided) return { status: 'decided', workflowId, ...decided };
    throw unknown();
  });

  app.post('/v1/approvals/:approvalId/decision', { onRequest: context.decisionRateLimit }, async (request) => {
    parseInput(emptyQuerySchema, request.query, 'query');
    const { approvalId } = parseInput(approvalParamsSchema, request.params, 'params');
    const body = parseInput(decisionBodySchema, request.body, 'body');
    return context.decisions.decideOne(approverOf(request), { approvalId, ...body });
  });
}
