import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApproverTokens } from './approver-tokens';
import { GatewayError } from './gateway-error';
import { verifyBearerToken } from './verify-bearer-token';

// Who each authenticated request speaks for. A WeakMap rather than a request decoration: nothing
// else can set it, and it goes away with the request.
const identities = new WeakMap<FastifyRequest, string>();

/**
 * An `onRequest` hook that lets a request through only with a valid bearer token, and remembers the
 * token's approver identity for {@link approverOf}. Every failure is the same opaque 401: it does not
 * say whether the header was missing, malformed or wrong.
 */
export function createAuthenticationHook(tokens: ApproverTokens, publicPaths: ReadonlySet<string>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.routeOptions.url !== undefined && publicPaths.has(request.routeOptions.url)) return;
    const identity = verifyBearerToken(request.headers.authorization, tokens);
    if (identity === undefined) {
      reply.header('www-authenticate', 'Bearer');
      throw new GatewayError('unauthorized', 'A valid bearer token is required.');
    }
    identities.set(request, identity);
  };
}

/** The approver identity of an authenticated request. */
export function approverOf(request: FastifyRequest): string {
  const identity = identities.get(request);
  // Reaching a route without an identity means the hook was not installed: fail closed.
  if (identity === undefined) throw new GatewayError('unauthorized', 'A valid bearer token is required.');
  return identity;
}
