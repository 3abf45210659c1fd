import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenScope } from '../../identity';
import type { ApproverTokens } from './approver-tokens';
import { GatewayError } from '../http/gateway-error';
import { verifyBearerToken } from './verify-bearer-token';

/** Who an authenticated request speaks for, and what it may do. */
export interface Caller {
  /** The person id of the token. */
  person: string;
  /** The token's scopes. */
  scopes: ReadonlySet<TokenScope>;
}

// Who each authenticated request speaks for. A WeakMap rather than a request decoration: nothing
// else can set it, and it goes away with the request.
const callers = new WeakMap<FastifyRequest, Caller>();

/**
 * An `onRequest` hook that lets a request through only with a valid bearer token, and remembers the
 * token's person and scopes for {@link callerOf}. Every failure is the same opaque 401: it does not
 * say whether the header was missing, malformed or wrong.
 */
export function createAuthenticationHook(tokens: ApproverTokens, publicPaths: ReadonlySet<string>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.routeOptions.url !== undefined && publicPaths.has(request.routeOptions.url)) return;
    const grant = verifyBearerToken(request.headers.authorization, tokens);
    if (grant === undefined) {
      reply.header('www-authenticate', 'Bearer');
      throw new GatewayError('unauthorized', 'A valid bearer token is required.');
    }
    callers.set(request, { person: grant.identity, scopes: new Set(grant.scopes) });
  };
}

/** The caller of an authenticated request. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request);
  // Reaching a route without an identity means the hook was not installed: fail closed.
  if (caller === undefined) throw new GatewayError('unauthorized', 'A valid bearer token is required.');
  return caller;
}

/** The person id of an authenticated request. */
export function approverOf(request: FastifyRequest): string {
  return callerOf(request).person;
}

/**
 * The caller, if its token holds at least one of `scopes`; otherwise a 403 naming what is missing.
 *
 * @example
 * const caller = requireScope(request, 'audit:read');
 */
export function requireScope(request: FastifyRequest, ...scopes: TokenScope[]): Caller {
  const caller = callerOf(request);
  if (scopes.some((scope) => caller.scopes.has(scope))) return caller;
  const needed = scopes.length === 1 ? `the scope ${scopes[0]}` : `one of the scopes ${scopes.join(', ')}`;
  throw new GatewayError('forbidden', `This token lacks ${needed}.`);
}
