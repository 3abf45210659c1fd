import type { FastifyInstance } from 'fastify';
import type { PendingApprovalOfTurn } from '../../client';
import type { AgentTurnState, PendingToolApproval } from '../../protocol';
import { requireScope, type Caller } from '../auth/authenticate';
import { auditRefusedRequests } from '../decisions/refused-request-audit';
import type { DecisionRequest } from '../decisions/approval-decisions';
import type { GatewayContext } from '../gateway-context';
import { GatewayError } from '../http/gateway-error';
import {
  approvalParamsSchema,
  decisionBodySchema,
  emptyQuerySchema,
  listApprovalsQuerySchema,
} from '../http/gateway-schemas';
import { listPendingApprovals } from '../turns/list-pending-approvals';
import { parseInput } from '../http/parse-input';
import { toGatewayError } from '../http/to-gateway-error';
import { mayDecide, mayReadTurn } from '../auth/turn-access';
import { readTurnState, withReadDeadline, workflowIdOfApprovalId } from '../turns/turn-reads';
import { requesterOf } from '../auth/turn-requester';

/** `GET /v1/approvals`, `GET /v1/approvals/:approvalId`, `POST /v1/approvals/:approvalId/decision`. */
export function registerApprovalRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.get('/v1/approvals', async (request) => {
    const caller = requireScope(request, 'approvals:decide', 'turns:read', 'turns:read-all');
    const filter = parseInput(listApprovalsQuerySchema, request.query, 'query');
    const visible = visibilityFor(caller, context);
    const listing = await listPendingApprovals(
      context.tollgate,
      filter,
      (approval) => visible(approval, approval.workflowId),
      context.listing,
    );
    return listing;
  });

  app.get('/v1/approvals/:approvalId', async (request) => {
    const caller = requireScope(request, 'approvals:decide', 'turns:read', 'turns:read-all');
    parseInput(emptyQuerySchema, request.query, 'query');
    const { approvalId } = parseInput(approvalParamsSchema, request.params, 'params');
    const unknown = () => new GatewayError('unknown-approval', `Unknown approvalId "${approvalId}".`, { approvalId });
    let workflowId: string;
    let state: AgentTurnState;
    try {
      workflowId = await workflowIdOfApprovalId(context.tollgate, approvalId, context.readTimeoutMs);
      state = await readTurnState(context.tollgate, workflowId, context.readTimeoutMs);
    } catch (error) {
      const problem = toGatewayError(error);
      throw problem.kind === 'unknown-turn' || problem.kind === 'unknown-approval' ? unknown() : error;
    }
    const visible = visibilityFor(caller, context);
    const pending = state.pending.find((approval) => approval.approvalId === approvalId);
    if (pending && (await visible(pending, workflowId))) return { status: 'pending', workflowId, ...pending };
    const decided = state.audit.find((entry) => entry.approvalId === approvalId);
    if (decided && (decided.approver === caller.person || (await visible(decided, workflowId)))) {
      return { status: 'decided', workflowId, ...decided };
    }
    // One the caller may not see is answered like one that does not exist.
    throw unknown();
  });

  // Every refusal before the decisions (no token, a token that may not decide, a limit, a bad body) is audited: who
  // as far as known, which approval, why (the body is read only for its decision, when it parses).
  const refusals = auditRefusedRequests(context.decisions, 'rest', (request) => {
    const params = approvalParamsSchema.safeParse(request.params);
    const body = decisionBodySchema.safeParse(request.body);
    return {
      request: {
        ...(params.success && { approvalId: params.data.approvalId }),
        ...(body.success && { approved: body.data.approved }),
      },
    };
  });
  app.post(
    '/v1/approvals/:approvalId/decision',
    { onRequest: context.decisionRateLimit, onError: refusals },
    async (request) => {
      parseInput(emptyQuerySchema, request.query, 'query');
      const { approvalId } = parseInput(approvalParamsSchema, request.params, 'params');
      const caller = requireScope(request, 'approvals:decide');
      const { input, allow, ...body } = parseInput(decisionBodySchema, request.body, 'body');
      const actor = { person: caller.person, identity: `token:${caller.person}` };
      // Parsed from a JSON body, so JSON by construction.
      const decision = {
        approvalId,
        ...body,
        ...(input !== undefined && { input: input as DecisionRequest['input'] }),
      };
      if (allow) return context.grants.approveAndAllow(actor, decision, allow);
      return context.decisions.decideOne(actor, decision);
    },
  );
}

/**
 * What a caller sees of approvals: everything with `turns:read-all`; those it may decide; those of turns it
 * started (with `turns:read`). The requester of a turn is read once per turn, and only when needed.
 */
function visibilityFor(
  caller: Caller,
  context: GatewayContext,
): (approval: PendingToolApproval | PendingApprovalOfTurn, workflowId: string) => Promise<boolean> {
  const requesters = new Map<string, Promise<string | undefined>>();
  return async (approval, workflowId) => {
    if (caller.scopes.has('turns:read-all')) return true;
    if (mayDecide(caller, approval)) return true;
    if (!caller.scopes.has('turns:read')) return false;
    let requester = requesters.get(workflowId);
    if (!requester) {
      requester = withReadDeadline(context.tollgate, context.readTimeoutMs, () =>
        requesterOf(context.tollgate, workflowId),
      ).catch(() => undefined);
      requesters.set(workflowId, requester);
    }
    return mayReadTurn(caller, await requester);
  };
}
