import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { fitTurnInput, newTurnId } from '../../client';
import { approverNamesResolved } from '../../identity';
import { callerOf, requireScope, type Caller } from '../auth/authenticate';
import { toGatewayError } from '../http/to-gateway-error';
import { auditRefusedRequests } from '../decisions/refused-request-audit';
import type { DecisionRequest } from '../decisions/approval-decisions';
import { decisionsInMessages } from '../decisions/message-decisions';
import type { GatewayContext } from '../gateway-context';
import { GatewayError } from '../http/gateway-error';
import {
  batchDecisionBodySchema,
  emptyQuerySchema,
  startTurnBodySchema,
  turnParamsSchema,
} from '../http/gateway-schemas';
import { parseInput, parsedInput } from '../http/parse-input';
import { callerMayReadTurn, checkContentRefsOfInput, readTurnContent, turnContentParamsSchema } from './turn-content';
import { readTurnState } from '../turns/turn-reads';

/**
 * `POST /v1/turns`, `GET /v1/turns/:workflowId`, `GET /v1/turns/:workflowId/content/:ref`,
 * `POST /v1/turns/:workflowId/decisions`.
 */
export function registerTurnRoutes(app: FastifyInstance, context: GatewayContext): void {
  // A start refused before its messages reached the decisions (no token, a token that may not start turns) is
  // audited when the messages carried a decision (a halted turn's continuation): the first one names the attempt.
  const refusedContinuations = auditRefusedRequests(context.decisions, 'message', (request) => {
    const body = startBodyOf(request);
    const first = body.success ? decisionsInMessages(body.data.messages)[0] : undefined;
    return first && { request: { approvalId: first.response.approvalId, approved: first.response.approved } };
  });
  app.post('/v1/turns', { onError: refusedContinuations }, async (request, reply) => {
    const caller = requireScope(request, 'turns:start');
    parseInput(emptyQuerySchema, request.query, 'query');
    const body = parsedInput(startBodyOf(request), request.body, 'body');
    // Running without asking anyone is a right of the token, never of the request.
    if (body.autoApprove === true && !caller.scopes.has('turns:autonomous')) {
      throw new GatewayError('forbidden', 'autoApprove needs a token with the scope turns:autonomous.');
    }
    // Input too large for Temporal's payloads even with its history stored is a 413 before anything else happens.
    fitTurnInput(body);
    // Stored content the model would read must be the caller's to read: a ref alone is not a key.
    await checkContentRefsOfInput(context, caller, body);
    // Decisions inside the messages (a halted turn's continuation) are decisions like any other: they need the right
    // to decide, the approver is the token's person, and each is bound to this turn and audited.
    const workflowId = newTurnId();
    const messages = await context.decisions.forwardInMessages(
      { person: caller.person, identity: `token:${caller.person}`, mayDecide: caller.scopes.has('approvals:decide') },
      workflowId,
      body.messages,
    );
    // The requester is whoever holds the token, so self-approval and tenancy can trust it. Approver and editor lists
    // name people as the turn compares them: by person id.
    const handle = await context.tollgate.startTurn(
      {
        ...body,
        ...(body.approvalRules && { approvalRules: approverNamesResolved(body.approvalRules, context.people) }),
        messages,
        requester: caller.person,
      },
      { workflowId },
    );
    return reply
      .code(201)
      .header('location', `/v1/turns/${encodeURIComponent(handle.workflowId)}`)
      .send({ workflowId: handle.workflowId });
  });

  app.get('/v1/turns/:workflowId', async (request) => {
    const caller = requireScope(request, 'turns:read', 'turns:read-all');
    parseInput(emptyQuerySchema, request.query, 'query');
    const { workflowId } = parseInput(turnParamsSchema, request.params, 'params');
    // Another person's turn is answered exactly like a turn that does not exist: no hint that it does.
    if (!(await callerMayReadTurn(context, caller, workflowId))) {
      throw new GatewayError('unknown-turn', `No turn "${workflowId}".`);
    }
    const state = await readTurnState(context.tollgate, workflowId, context.readTimeoutMs);
    return { workflowId, ...state };
  });

  // A large tool output, read through the turn that produced it (tenancy as for the turn itself).
  app.get('/v1/turns/:workflowId/content/:ref', async (request) => {
    const caller = requireScope(request, 'turns:read', 'turns:read-all');
    parseInput(emptyQuerySchema, request.query, 'query');
    const { workflowId, ref } = parseInput(turnContentParamsSchema, request.params, 'params');
    const output = await readTurnContent(context, caller, workflowId, ref);
    return { workflowId, ref, output };
  });

  // Refusals before the decisions (no token, a limit, a bad body) are audited; a token that may not decide is audited
  // below, once per decision it asked for.
  const refusals = auditRefusedRequests(context.decisions, 'rest', (request) => {
    const params = turnParamsSchema.safeParse(request.params);
    return { request: {}, ...(params.success && { workflowId: params.data.workflowId }) };
  });
  app.post(
    '/v1/turns/:workflowId/decisions',
    { onRequest: context.decisionRateLimit, onError: refusals },
    async (request) => {
      parseInput(emptyQuerySchema, request.query, 'query');
      const { workflowId } = parseInput(turnParamsSchema, request.params, 'params');
      const { responses } = parseInput(batchDecisionBodySchema, request.body, 'body');
      let caller: Caller;
      try {
        caller = requireScope(request, 'approvals:decide');
      } catch (error) {
        // Each refused decision is audited, with its cause, as every refused attempt is.
        const person = callerOf(request).person;
        await Promise.all(
          responses.map((response) =>
            context.decisions.recordRefusal(
              { person, identity: `token:${person}` },
              'rest',
              { approvalId: response.approvalId, approved: response.approved },
              toGatewayError(error),
              workflowId,
            ),
          ),
        );
        throw error;
      }
      const decisions = await context.decisions.decideBatch(
        { person: caller.person, identity: `token:${caller.person}` },
        workflowId,
        // Parsed from a JSON body, so any edited input is JSON by construction.
        responses as DecisionRequest[],
      );
      return { decisions };
    },
  );
}

/**
 * Each `POST /v1/turns` body parsed once (up to megabytes of messages): the route and, on a refusal, its audit hook read
 * the same parse, whichever of them asks first (a token that may not start turns is refused before the route parses).
 */
const startBodies = new WeakMap<FastifyRequest, z.ZodSafeParseResult<z.output<typeof startTurnBodySchema>>>();

function startBodyOf(request: FastifyRequest): z.ZodSafeParseResult<z.output<typeof startTurnBodySchema>> {
  let parsed = startBodies.get(request);
  if (!parsed) {
    parsed = startTurnBodySchema.safeParse(request.body);
    startBodies.set(request, parsed);
  }
  return parsed;
}
