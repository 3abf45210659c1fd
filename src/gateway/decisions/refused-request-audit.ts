import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../auth/authenticate';
import { toGatewayError } from '../http/to-gateway-error';
import { isKeptInAudit, type ApprovalDecisions, type RefusedRequest } from './approval-decisions';
import type { DecisionAttempt, DecisionAttemptChannel } from './decision-audit';

/** What a refused request was about, read from what the router parsed (the URL; the body when it was parsed). */
export interface RefusedRequestDescription {
  request: RefusedRequest;
  workflowId?: string;
  grant?: DecisionAttempt['grant'];
}

/**
 * An `onError` hook for a REST route that decides, grants or revokes: a request refused anywhere before the decision
 * reached {@link ApprovalDecisions} (no valid token, the address limit, a token without the right, the decision limit,
 * a body that does not parse) is kept in the audit with its cause, as the person of its token when it had a valid one,
 * otherwise as unauthenticated with its address (counted, in a flood). What the decisions or the grants kept already
 * is not kept twice; a failure on the gateway's side (5xx) is not a refusal. `describe` returns undefined for a
 * request that carried no decision (a turn started without one): its refusal is not an approval refused.
 *
 * @example
 * app.post('/v1/grants', { onError: auditRefusedRequests(context.decisions, 'rest', () => ({ request: {} })) }, handler);
 */
export function auditRefusedRequests(
  decisions: ApprovalDecisions,
  channel: DecisionAttemptChannel,
  describe: (request: FastifyRequest) => RefusedRequestDescription | undefined,
): (request: FastifyRequest, reply: FastifyReply, error: Error) => Promise<void> {
  return async (request, _reply, error) => {
    const problem = toGatewayError(error);
    if (problem.status >= 500 || isKeptInAudit(error)) return;
    // A route that only sometimes carries a decision says when it did not: that refusal is no decision refused.
    const described = describe(request);
    if (!described) return;
    const person = personOf(request);
    await decisions.recordRefusal(
      person === undefined ? { from: request.ip } : { person, identity: `token:${person}` },
      channel,
      described.request,
      problem,
      described.workflowId,
      described.grant,
    );
  };
}

function personOf(request: FastifyRequest): string | undefined {
  try {
    return callerOf(request).person;
  } catch {
    return undefined;
  }
}
