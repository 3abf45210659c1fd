import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { PersonDirectory } from '../identity';
import { ApprovalDecisions } from './decisions/approval-decisions';
import { registerApprovalRoutes } from './routes/approval-routes';
import { registerAuditRoutes } from './routes/audit-routes';
import { registerApprovalStatsRoutes } from './routes/approval-stats-routes';
import { registerApprovalSuggestionsRoutes } from './routes/approval-suggestions-routes';
import { createAuthenticationHook } from './auth/authenticate';
import { createDecisionRateLimit, DecisionRateLimiter } from './decisions/decision-rate-limit';
import { DecisionAudit } from './decisions/decision-audit';
import type { GatewayContext } from './gateway-context';
import { defaultBodyLimitBytes, type GatewayOptions } from './gateway-options';
import { GatewayError } from './http/gateway-error';
import { emptyQuerySchema } from './http/gateway-schemas';
import { parseJsonBody } from './http/json-body-parser';
import { openApiDocument } from './routes/openapi-document';
import { parseInput } from './http/parse-input';
import { installProblemHandler, sendFrameworkProblem } from './http/problem-handler';
import { defaultReadTimeoutMs } from './turns/turn-reads';
import { registerTurnRoutes } from './routes/turn-routes';
import { withChatRoutes } from './chat';
import { withInboxRoutes } from './inbox';

// Routes anyone may call: a load balancer's health check carries no token.
const corePublicPaths = ['/healthz'];

/**
 * Builds the approval gateway: a Fastify app with the REST API, bearer-token auth, strict input,
 * rate limits and RFC 9457 errors. Call `listen` on it; `close` does not close `tollgate`.
 *
 * @example
 * const tollgate = await TollgateClient.connect();
 * const tokens = ApproverTokens.fromRecord({ 'ana-0123456789abcdef': 'ana' });
 * const gateway = await createGateway({ tollgate, tokens });
 * await gateway.listen({ port: 8788, host: '127.0.0.1' });
 */
export async function createGateway(gatewayOptions: GatewayOptions): Promise<FastifyInstance> {
  // The useChat routes (POST /api/chat, GET /api/chat/:id/stream), configured from the environment.
  const options = withInboxRoutes(withChatRoutes(gatewayOptions));
  const bodyLimitBytes = options.bodyLimitBytes ?? defaultBodyLimitBytes;
  const timeWindow = options.rateLimit?.timeWindowMs ?? 60_000;
  const audit = options.audit ?? new DecisionAudit();
  const app = Fastify({
    bodyLimit: bodyLimitBytes,
    logger: options.logger ?? false,
    // approvalIds may be 1,000 characters (percent-encoded, more): the schema bounds them with a 400,
    // not the router with a bare 414.
    routerOptions: { maxParamLength: 4_000 },
    // A URL the router cannot decode is a problem+json 400 like any other bad request.
    frameworkErrors: (error, request, reply) => sendFrameworkProblem(error, request, reply, { bodyLimitBytes }),
  });

  installProblemHandler(app, { bodyLimitBytes });
  // JSON only: every other content type is a 415, and JSON is parsed by the gateway's own parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  await app.register(rateLimit, {
    global: false,
    timeWindow,
    errorResponseBuilder: (_request, context) =>
      new GatewayError('rate-limited', `Too many requests; retry in ${context.after}.`),
  });
  // The address limit runs before authentication, so guessing tokens is limited too.
  app.addHook('onRequest', app.rateLimit({ max: options.rateLimit?.max ?? 600, timeWindow }));
  const publicPaths = new Set([
    ...corePublicPaths,
    ...(options.extensions ?? []).flatMap((extension) => extension.publicPaths),
  ]);
  app.addHook('onRequest', createAuthenticationHook(options.tokens, publicPaths));

  const people = options.people ?? PersonDirectory.empty();
  const readTimeoutMs = options.readTimeoutMs ?? defaultReadTimeoutMs;
  const decisionLimiter = new DecisionRateLimiter({
    max: options.rateLimit?.decisionMax ?? 60,
    timeWindowMs: timeWindow,
  });
  const context: GatewayContext = {
    tollgate: options.tollgate,
    audit,
    people,
    decisions: new ApprovalDecisions(options.tollgate, audit, {
      people,
      readTimeoutMs,
      ...(options.signingKey && { signingKey: options.signingKey }),
      logError: (error) => app.log.error({ err: error }, 'a decision attempt could not be written to the audit file'),
    }),
    decisionLimiter,
    decisionRateLimit: createDecisionRateLimit(decisionLimiter),
    readTimeoutMs,
    listing: options.listing ?? {},
  };

  app.get('/healthz', async () => ({ ok: true }));
  const document = openApiDocument();
  app.get('/openapi.json', async (request) => {
    parseInput(emptyQuerySchema, request.query, 'query');
    return document;
  });
  registerTurnRoutes(app, context);
  registerApprovalRoutes(app, context);
  registerAuditRoutes(app, context);
  registerApprovalStatsRoutes(app, context);
  registerApprovalSuggestionsRoutes(app, context);
  for (const extension of options.extensions ?? []) await extension.register(app, context);
  app.setNotFoundHandler((request) => {
    throw new GatewayError('not-found', `No route ${request.method} ${request.url.split('?')[0]}.`);
  });
  return app;
}
