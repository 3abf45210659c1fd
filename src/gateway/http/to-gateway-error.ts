import { isApprovalDecisionError, isTurnInputTooLargeError, type ApprovalDecisionErrorCode } from '../../client';
import { GatewayError, isGatewayError, type ProblemKind } from './gateway-error';

/**
 * How a refused decision maps to a problem. `turn-closed` is 409, not 410: the turn still exists and
 * can be read; it only no longer takes decisions. `forbidden` (403) is for approver rights, which the
 * client does not raise yet: the row is here so that adding them needs no change at the edge.
 */
export const decisionProblemKinds: Record<ApprovalDecisionErrorCode | 'forbidden', ProblemKind> = {
  invalid: 'invalid-request',
  'unknown-approval': 'unknown-approval',
  conflict: 'conflict',
  expired: 'expired',
  'turn-closed': 'turn-closed',
  forbidden: 'forbidden',
};

// Fastify's own refusals, by code. Their messages are fixed texts, safe to pass on.
const fastifyProblemKinds: Record<string, ProblemKind> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload-too-large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid-request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed-json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed-json',
};

// gRPC status codes: 4 is a deadline passed (a turn no worker serves never answers a query), 14 is
// Temporal unreachable, 5 is no such workflow (raw service calls, such as reading a history). 1 (a call
// cancelled, as a query is when the worker holding the turn dies), 8 (the server's rate limit) and 10 (a
// conflict the server asks to retry) all mean "try again".
const deadlineExceeded = 4;
const unavailable = 14;
const notFound = 5;
const tryAgainCodes = new Set([1, 8, 10]);

interface ErrorFields {
  name?: string;
  code?: unknown;
  statusCode?: unknown;
  message?: string;
  cause?: ErrorFields;
}

/**
 * Classifies any error into the gateway's one error type. Unknown errors become a 500 whose detail
 * says nothing about the cause: the cause goes to the log, never to the client.
 */
export function toGatewayError(error: unknown, context: { bodyLimitBytes?: number } = {}): GatewayError {
  if (isGatewayError(error)) return error;
  if (isApprovalDecisionError(error)) {
    const kind = decisionProblemKinds[error.code as ApprovalDecisionErrorCode | 'forbidden'] ?? 'invalid-request';
    return new GatewayError(kind, error.message, {
      ...(error.approvalId !== undefined && { approvalId: error.approvalId }),
      ...(error.workflowId !== undefined && { workflowId: error.workflowId }),
    });
  }
  // A turn input that cannot fit Temporal's payloads is refused before any workflow sees it, naming the limit.
  if (isTurnInputTooLargeError(error)) return new GatewayError('payload-too-large', error.message);
  const fields = (typeof error === 'object' && error !== null ? error : {}) as ErrorFields;
  if (fields.name === 'WorkflowNotFoundError') {
    return new GatewayError('unknown-turn', 'No such turn: no workflow has this id.');
  }
  if (fields.name === 'QueryNotRegisteredError') {
    return new GatewayError('unknown-turn', 'This workflow is not a Tollgate turn.');
  }
  if (fields.name === 'WorkflowUpdateRPCTimeoutOrCancelledError') {
    return new GatewayError(
      'unavailable',
      'Temporal did not confirm the decision in time (is a worker running?); it may not be applied. Retry: an identical decision is idempotent.',
    );
  }
  const grpcCode = fields.name === 'ServiceError' ? fields.cause?.code : fields.code;
  if (fields.name === 'ServiceError' || typeof fields.code === 'number') {
    if (grpcCode === deadlineExceeded) {
      return new GatewayError('unavailable', 'The turn did not answer in time (is a worker running?); retry later.');
    }
    if (grpcCode === unavailable) return new GatewayError('unavailable', 'Temporal is unavailable; retry later.');
    if (typeof grpcCode === 'number' && tryAgainCodes.has(grpcCode)) {
      return new GatewayError(
        'unavailable',
        'Temporal could not finish the request now (a worker may have just gone away); retry in a few seconds.',
      );
    }
    if (grpcCode === notFound) return new GatewayError('unknown-turn', 'No such turn: no workflow has this id.');
  }
  if (fields.code === 'FST_ERR_BAD_URL') {
    return new GatewayError('invalid-request', 'The URL is not valid: a percent-escape in it does not decode.');
  }
  const fastifyKind = typeof fields.code === 'string' ? fastifyProblemKinds[fields.code] : undefined;
  if (fastifyKind === 'payload-too-large') {
    const limit = context.bodyLimitBytes === undefined ? '' : ` of ${context.bodyLimitBytes} bytes`;
    return new GatewayError(fastifyKind, `The body is larger than the limit${limit}.`);
  }
  if (fastifyKind === 'unsupported-media-type') {
    return new GatewayError(fastifyKind, 'Send the body as JSON, with Content-Type: application/json.');
  }
  if (fastifyKind) return new GatewayError(fastifyKind, fields.message ?? 'The request could not be read.');
  // Any other client error Fastify raises (a bad URL encoding, say) keeps its status class.
  if (typeof fields.statusCode === 'number' && fields.statusCode >= 400 && fields.statusCode < 500) {
    return new GatewayError('invalid-request', 'The request could not be read.');
  }
  return new GatewayError('internal', 'Something went wrong on the gateway; the error was logged.');
}
