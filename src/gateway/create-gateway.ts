import type RateLimit from '@fastify/rate-limit';
import type Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { PersonDirectory } from '../identity';
import { checkGatewayStartup } from '../startup/gateway-startup-checks';
import { folderOfStore } from '../store/kept-from-tools';
import { defaultWorkspaceFolder } from '../tools/workspace/resolve-workspace-root';
import { ApprovalDecisions } from './decisions/approval-decisions';
import { StandingGrants } from './decisions/standing-grants';
import { createAuthenticationHook } from './auth/authenticate';
import { createDecisionRateLimit, DecisionRateLimiter } from './decisions/decision-rate-limit';
import { DecisionAudit } from './decisions/decision-audit';
import type { GatewayContext } from './gateway-context';
import { defaultBodyLimitBytes, type GatewayChannel, type GatewayOptions } from './gateway-options';
import { GatewayError } from './http/gateway-error';
import { parseJsonBody } from './http/json-body-parser';
import { installProblemHandler, sendFrameworkProblem } from './http/problem-handler';
import { defaultReadTimeoutMs } from './turns/turn-reads';
import { restChannel } from './routes/rest-channel';
import { chatChannel } from './chat';

/**
 * fastify and its rate limiter, loaded when a gateway is made instead of with Tollgate's modules: a worker that imports
 * `createTollgateWorker` from `tollgate` does not load the gateway's HTTP server at start-up.
 */
function httpServer(): { fastify: typeof Fastify; rateLimit: typeof RateLimit } {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    fastify: (require('fastify') as { default: typeof Fastify }).default,
    rateLimit: (require('@fastify/rate-limit') as { default: typeof RateLimit }).default,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

// Routes anyone may call: a load balancer's health check carries no token.
const corePublicPaths = ['/healthz'];

/**
 * Builds the approval gateway: a Fastify app with bearer-token auth, strict input, rate limits and RFC 9457 errors,
 * serving the channels its caller registers (the REST API and the chat routes by default). It reads no environment
 * variable: `npm run gateway` passes what `gatewaySettingsFromEnvironment` and `gatewayChannelsFromEnvironment` read.
 * It first runs the start-up checks of `npm run gateway` (`checkGatewayStartup`): decisions signed (or unsigned by
 * the operator's explicit word), its records outside the tools' workspace, the namespace's search attributes.
 * Call `listen` on it; `close` does not close `tollgate`.
 *
 * @example
 * const tollgate = await TollgateClient.connect({ address: 'localhost:7233', taskQueue: 'tollgate' });
 * const tokens = ApproverTokens.fromRecord({ 'ana-0123456789abcdef': 'ana' });
 * const gateway = await createGateway({ tollgate, tokens, channels: [restChannel(), chatChannel({ tokens })] });
 * await gateway.listen({ port: 8788, host: '127.0.0.1' });
 */
export async function createGateway(options: GatewayOptions): Promise<FastifyInstance> {
  const channels = channelsOf(options);
  const bodyLimitBytes = options.bodyLimitBytes ?? defaultBodyLimitBytes;
  const timeWindow = options.rateLimit?.timeWindowMs ?? 60_000;
  const audit = options.audit ?? new DecisionAudit();
  await checkGatewayStartup({
    connection: options.tollgate.client.connection,
    namespace: options.tollgate.client.options.namespace,
    taskQueue: options.tollgate.taskQueue,
    signs: options.signingKey !== undefined,
    acceptUnsignedDecisions: options.acceptUnsignedDecisions ?? false,
    places: {
      'the audit file': audit.places.file,
      'the shared audit folder': audit.places.sharedFolder,
      "the client's content store": folderOfStore(options.tollgate.store),
    },
    workspace: options.workspace ?? defaultWorkspaceFolder,
  });
  const { fastify, rateLimit } = httpServer();
  const app = fastify({
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
  const publicPaths = new Set([...corePublicPaths, ...channels.flatMap((channel) => channel.publicPaths)]);
  app.addHook('onRequest', createAuthenticationHook(options.tokens, publicPaths));

  const people = options.people ?? PersonDirectory.empty();
  const readTimeoutMs = options.readTimeoutMs ?? defaultReadTimeoutMs;
  const decisionLimiter = new DecisionRateLimiter({
    max: options.rateLimit?.decisionMax ?? 60,
    timeWindowMs: timeWindow,
  });
  const logError = (error: unknown) =>
    app.log.error({ err: error }, 'a decision attempt could not be written to the audit file');
  const decisions = new ApprovalDecisions(options.tollgate, audit, {
    readTimeoutMs,
    ...(options.signingKey && { signingKey: options.signingKey }),
    logError,
  });
  const context: GatewayContext = {
    tollgate: options.tollgate,
    audit,
    people,
    decisions,
    grants: new StandingGrants({
      decisions,
      people,
      tollgate: options.tollgate,
      readTimeoutMs,
      logError,
      ...(options.signingKey && { signingKey: options.signingKey }),
    }),
    decisionLimiter,
    decisionRateLimit: createDecisionRateLimit(decisionLimiter),
    readTimeoutMs,
    listing: options.listing ?? {},
  };

  // Refusals a flood counted but did not write yet are written before the gateway goes.
  app.addHook('onClose', async () => decisions.close());
  app.get('/healthz', async () => ({ ok: true }));
  for (const channel of channels) await channel.register(app, context);
  app.setNotFoundHandler((request) => {
    throw new GatewayError('not-found', `No route ${request.method} ${request.url.split('?')[0]}.`);
  });
  return app;
}

/** The channels to register: the caller's (or the default REST and chat ones) and the extensions, each name once. */
function channelsOf(options: GatewayOptions): GatewayChannel[] {
  const extensions = options.extensions ?? [];
  // An extension of a default channel's name (a chat with its own settings) takes that channel's place.
  const defaults = [restChannel(), chatChannel({ tokens: options.tokens })].filter(
    (channel) => !extensions.some((extension) => extension.name === channel.name),
  );
  const channels = [...(options.channels ?? defaults), ...extensions];
  const names = channels.flatMap((channel) => (channel.name === undefined ? [] : [channel.name]));
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) {
    throw new TypeError(`Two gateway channels are named "${repeated}": register each channel once.`);
  }
  return channels;
}
