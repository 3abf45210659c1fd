import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { TollgateClient } from '../client';
import type { PersonDirectory } from '../identity';
import type { ApproverTokens } from './auth/approver-tokens';
import type { DecisionAudit } from './decisions/decision-audit';
import type { DecisionSigningKey } from './decisions/sign-decision';
import type { GatewayContext } from './gateway-context';
import type { PendingListingLimits } from './turns/list-pending-approvals';

/** Requests allowed per window: overall per client address, and for decisions per approver. */
export interface GatewayRateLimit {
  /** Requests per window from one address, on every route (default 600). */
  max?: number;
  /** Decisions per window by one approver (default 60). */
  decisionMax?: number;
  /** The window in milliseconds (default one minute). */
  timeWindowMs?: number;
}

/** What the gateway needs. */
export interface GatewayOptions {
  /** How turns are started, read and decided. */
  tollgate: TollgateClient;
  /** The bearer tokens accepted, the person each stands for and its scopes. */
  tokens: ApproverTokens;
  /** The identity map (people and their Slack users and addresses); not configured when absent. */
  people?: PersonDirectory;
  /**
   * Signs every decision the gateway forwards. Without it the gateway refuses to start unless
   * `acceptUnsignedDecisions` says decisions may go unsigned.
   */
  signingKey?: DecisionSigningKey;
  /**
   * Forward unsigned decisions when no `signingKey` is given. Default: no (`npm run gateway` takes it from
   * `TOLLGATE_ACCEPT_UNSIGNED_DECISIONS`).
   */
  acceptUnsignedDecisions?: boolean;
  /**
   * The folder the workers' tools read and write on this machine (their workspace): the gateway refuses to start with
   * its audit file, its shared audit folder or its client's folder content store inside or above it. Default: the
   * workers' default, `.tollgate/workspace` (`npm run gateway` takes it from `TOLLGATE_WORKSPACE`).
   */
  workspace?: string;
  /** Deadline of one read of a turn before it is a 503 (default 10 s). */
  readTimeoutMs?: number;
  /** How far `GET /v1/approvals` reaches: concurrency, per-turn timeout, most turns. */
  listing?: PendingListingLimits;
  /** Where decision attempts are kept; a fresh in-memory audit when absent. */
  audit?: DecisionAudit;
  rateLimit?: GatewayRateLimit;
  /** Largest request body on any route (default 64 KiB); larger ones get 413. */
  bodyLimitBytes?: number;
  /** Fastify's logger settings (off by default). */
  logger?: FastifyServerOptions['logger'];
  /**
   * The channels the gateway serves, each registered on its own, in order, the way Fastify plugins are:
   * `restChannel()`, `chatChannel(...)`, `inboxChannel(...)`, `slackChannel(...)`, `emailChannel(...)`, or your own
   * {@link GatewayChannel}. Default: the REST API and the chat routes with their defaults. `/healthz` is always served.
   */
  channels?: GatewayChannel[];
  /** Channels served besides `channels` (or besides the default ones); the older name for adding a channel. */
  extensions?: GatewayChannel[];
}

/**
 * A way in to the gateway: its routes, and the paths among them that skip bearer-token authentication because the
 * channel verifies callers itself (a Slack signature, an email link's token, the inbox's session).
 *
 * @example
 * const audit: GatewayChannel = {
 *   name: 'audit-export',
 *   publicPaths: [],
 *   register(app, context) {
 *     app.get('/export/audit', async () => context.audit.list({ limit: 100 }));
 *   },
 * };
 */
export interface GatewayChannel {
  /** Names the channel in the gateway's start-up line and errors, e.g. `rest`, `chat`, `slack`. */
  name?: string;
  /** Paths that skip bearer-token authentication because the channel verifies them itself. */
  publicPaths: string[];
  /** Adds the routes; `context` is what every channel shares (client, decisions, audit, people, limits). */
  register(app: FastifyInstance, context: GatewayContext): void | Promise<void>;
}

/** The older name of {@link GatewayChannel}. */
export type GatewayExtension = GatewayChannel;

/** Default body limit: a decision is a few hundred bytes, a turn's start a conversation. */
export const defaultBodyLimitBytes = 64 * 1024;
