import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError } from './gateway-error';
import { type FieldProblem } from './gateway-error';
import { toGatewayError } from './to-gateway-error';

/** The media type of every error body. */
export const problemContentType = 'application/problem+json';

/** An RFC 9457 problem body, with the gateway's extension members. */
export interface ProblemBody {
  /** A URI naming the kind of problem (`urn:tollgate:problem:conflict`). */
  type: string;
  /** A fixed summary of the kind. */
  title: string;
  /** The HTTP status, repeated for clients that only see the body. */
  status: number;
  /** What went wrong in this case. */
  detail: string;
  /** The request it concerns (its path and query). */
  instance: string;
  /** For 400s: every field at fault. */
  errors?: FieldProblem[];
  /** For refused decisions: the approval concerned. */
  approvalId?: string;
  /** For refused decisions: its turn. */
  workflowId?: string;
}

/** The problem body of an error for a request. */
export function problemBodyOf(error: GatewayError, instance: string): ProblemBody {
  return {
    ...error.extensions,
    type: error.type,
    title: error.title,
    status: error.status,
    detail: error.detail,
    instance,
  };
}

/**
 * Installs the one place where errors become responses: every thrown or sent error, from a route, a
 * hook, the body parser or the rate limiter, leaves as a problem+json body and never as a stack trace.
 */
export function installProblemHandler(app: FastifyInstance, context: { bodyLimitBytes: number }): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) =>
    sendFrameworkProblem(error, request, reply, context),
  );
}

/**
 * Sends any error as a problem: the error handler's body, also used for the router's own refusals
 * (`frameworkErrors`: a URL that does not decode), which never reach the error handler.
 */
export function sendFrameworkProblem(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  context: { bodyLimitBytes: number },
): FastifyReply {
  const problem = toGatewayError(error, context);
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  // Temporal or a worker did not answer: say when trying again is worth it.
  if (problem.status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '5');
  return reply
    .code(problem.status)
    .type(problemContentType)
    .send(problemBodyOf(problem, instanceOf(request)));
}

// The path alone: a query string can carry anything, and a URL the router refused may not even decode.
function instanceOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '/';
  return path.length > 2_000 ? `${path.slice(0, 2_000)}…` : path;
}
