import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { ToolApprovalAuditEntry } from '../../protocol';
import type { ApproverTokens } from '../auth/approver-tokens';
import type { Caller } from '../auth/authenticate';
import { mayDecide } from '../auth/turn-access';
import { requesterOf } from '../auth/turn-requester';
import type { DecisionActor, DecisionRequest, RefusedActor } from '../decisions/approval-decisions';
import { checkFormOrigin } from '../email/check-form-origin';
import { LocalUsedTokenStore, type UsedTokenStore } from '../email/used-token-store';
import type { GatewayContext } from '../gateway-context';
import type { GatewayExtension } from '../gateway-options';
import { GatewayError } from '../http/gateway-error';
import { approvalParamsSchema, decisionBodySchema, grantParamsSchema } from '../http/gateway-schemas';
import { parseInput } from '../http/parse-input';
import { toGatewayError } from '../http/to-gateway-error';
import { renderApprovalStatsChart } from '../stats/approval-stats-chart';
import {
  computeApprovalStats,
  defaultStatsTurnLimit,
  defaultStatsWindowMs,
  readWindowRecords,
} from '../stats/compute-approval-stats';
import { computeApprovalSuggestions } from '../suggestions/compute-approval-suggestions';
import { renderSuggestions } from '../suggestions/render-suggestions';
import { listPendingApprovals } from '../turns/list-pending-approvals';
import { withReadDeadline } from '../turns/turn-reads';
import { inboxAssetPaths, inboxScript, inboxStyle } from './inbox-assets';
import { allowedSentence, grantsPage, inboxGrantPaths } from './inbox-grants-page';
import { inboxPersonOf } from './inbox-person';
import {
  approvalItemHtml,
  confirmSignInPage,
  inboxHeaders,
  inboxMessagePage,
  inboxPage,
  quorumText,
  sendInboxPage,
  signInPage,
  signInSentPage,
  unansweredText,
  type InboxApproval,
  type InboxViewer,
} from './inbox-pages';
import { signInMail } from './sign-in-mail';
import { issueInboxValue, verifyInboxValue } from './signed-inbox-value';
import { parseTrustedProxies, type TrustedProxies } from './trusted-proxies';

/** The inbox's paths. */
export const inboxPaths = {
  page: '/inbox',
  signIn: '/inbox/sign-in',
  signInLink: '/inbox/sign-in/*',
  signOut: '/inbox/sign-out',
  approvals: '/inbox/approvals',
  stats: '/inbox/stats',
  decision: '/inbox/approvals/:approvalId/decision',
  grants: inboxGrantPaths.list,
  revokeGrant: inboxGrantPaths.revoke,
} as const;

/** How sign-in mails are sent: the email channel's SMTP transport and sender. */
export interface InboxMailer {
  transport: Pick<Transporter, 'sendMail'>;
  from: string;
}

/** How the inbox is set up. */
export interface InboxExtensionOptions {
  /** The gateway's tokens: a person may sign in only if one of their tokens holds `approvals:decide`. */
  tokens: ApproverTokens;
  /** Keys that sign sign-in links and session cookies, newest first; without any, only the proxy signs in. */
  sessionKeys?: readonly string[];
  /** Peers whose `X-Forwarded-Email` is believed (`10.0.0.0/8,127.0.0.1`); nobody's when absent. */
  trustedProxies?: TrustedProxies | string;
  /** How sign-in links are mailed; without it there is no sign-in by email. */
  mail?: InboxMailer;
  /** The gateway's public URL: links point to it and forms must come from its origin. Required for sign-in by email. */
  publicUrl?: string;
  /** Where used sign-in links and ended sessions are kept; in memory by default (one gateway only). */
  usedTokens?: UsedTokenStore;
  /** How long a sign-in link works (default 15 minutes). */
  signInLinkLifetimeMs?: number;
  /** How long a session lasts (default 12 hours). */
  sessionLifetimeMs?: number;
  /** Sign-in requests per window from one address (default 20 per minute). */
  rateLimit?: { max?: number; timeWindowMs?: number };
}

/** Who is signed in, and how. */
interface InboxUser extends InboxViewer {
  /** The channel identity for the audit: `inbox:email:ana@example.com` or `inbox:proxy:ana@example.com`. */
  identity: string;
  /** The session's id and expiry, for sign-out. */
  session?: { id: string; exp: number };
}

const cookieName = 'tollgate_inbox';
const inboxExtensionMarker = Symbol.for('tollgate.inboxExtension');

/** Whether a gateway extension is the inbox (so the environment's one is not added twice). */
export function isInboxExtension(extension: GatewayExtension): boolean {
  return inboxExtensionMarker in extension;
}

/**
 * The approver inbox: `GET /inbox` lists the approvals the signed-in person may decide (the same rights as every
 * channel: approver lists, `approvals:decide`), and decides them through the gateway's decisions on the `inbox`
 * channel of the audit. Sign-in is a one-time link mailed to a person's address (the link is claimed in the shared
 * used-token store, so it works once across every gateway) that sets a signed HttpOnly cookie any gateway holding
 * the key verifies, or an authenticating proxy's `X-Forwarded-Email`, believed only from `trustedProxies`. Every
 * POST must come from the gateway's own origin.
 *
 * @example
 * const gateway = await createGateway({
 *   tollgate, tokens, people,
 *   extensions: [inboxExtension({ tokens, sessionKeys: [key], mail: { transport, from }, publicUrl: 'https://tollgate.example.com' })],
 * });
 */
export function inboxExtension(options: InboxExtensionOptions): GatewayExtension {
  const keys = (options.sessionKeys ?? []).filter((key) => key.length > 0);
  const proxies =
    typeof options.trustedProxies === 'string' || options.trustedProxies === undefined
      ? parseTrustedProxies(options.trustedProxies)
      : options.trustedProxies;
  const usedTokens = options.usedTokens ?? new LocalUsedTokenStore();
  const publicUrl = options.publicUrl?.replace(/\/+$/, '');
  const publicOrigin = publicUrl ? new URL(publicUrl).origin : undefined;
  const emailSignIn = keys.length > 0 && options.mail !== undefined && publicUrl !== undefined;
  const linkLifetimeMs = options.signInLinkLifetimeMs ?? 15 * 60_000;
  const sessionLifetimeMs = options.sessionLifetimeMs ?? 12 * 3_600_000;
  const secure = publicUrl?.startsWith('https:') ?? false;
  // One mail per address a minute from this gateway: the form cannot be used to flood someone's mailbox.
  const lastMailed = new Map<string, number>();
  // Who started a turn never changes: read once per turn, kept for the next listings (bounded).
  const requesters = new Map<string, Promise<string | undefined>>();

  const extension = {
    [inboxExtensionMarker]: true,
    name: 'inbox',
    publicPaths: [
      inboxPaths.page,
      inboxAssetPaths.script,
      inboxAssetPaths.style,
      inboxPaths.signIn,
      inboxPaths.signInLink,
      inboxPaths.signOut,
      inboxPaths.stats,
      inboxPaths.approvals,
      inboxPaths.decision,
      inboxPaths.grants,
      inboxPaths.revokeGrant,
    ],
    async register(app, context) {
      const log = app.log;
      const ownOrigin = (request: FastifyRequest) => publicOrigin ?? `${request.protocol}://${request.host}`;
      const originRefusal = (request: FastifyRequest) =>
        checkFormOrigin({
          origin: request.headers.origin,
          fetchSite: request.headers['sec-fetch-site'],
          ownOrigin: ownOrigin(request),
        });

      const userOf = async (request: FastifyRequest): Promise<InboxUser | 'refused' | undefined> => {
        const header = request.headers['x-forwarded-email'];
        // The proxy's header counts only on a connection from the proxy itself: the socket's peer, never a header.
        if (header !== undefined && proxies.includes(request.socket.remoteAddress)) {
          const found = typeof header === 'string' ? inboxPersonOf(header, context.people, options.tokens) : undefined;
          if (!found) return 'refused';
          return { ...found, via: 'proxy', identity: `inbox:proxy:${found.address}` };
        }
        const verified = verifyInboxValue(cookieOf(request), 'inbox-session', keys, new Date());
        if (!verified.ok) return undefined;
        const { claims } = verified;
        const address = claims.identity.replace(/^email:/, '');
        const found = inboxPersonOf(address, context.people, options.tokens);
        // Rights are read now, not when the session began: a person removed since is signed out.
        if (!found || found.person !== claims.person) return undefined;
        if (await usedTokens.isUsed([`inbox-session:${claims.id}`])) return undefined;
        return {
          ...found,
          via: 'link',
          identity: `inbox:email:${found.address}`,
          session: { id: claims.id, exp: claims.exp },
        };
      };

      // Who a refused decision came from, as far as the request says: the signed-in person, a trusted proxy's address
      // that may not decide, or nobody (with the client's address).
      const refusedSenderOf = async (request: FastifyRequest): Promise<RefusedActor> => {
        const user = await userOf(request).catch(() => undefined);
        if (user && user !== 'refused') return { person: user.person, identity: user.identity, from: request.ip };
        const header = request.headers['x-forwarded-email'];
        if (user === 'refused' && typeof header === 'string') {
          return {
            identity: `inbox:proxy:${header
              .trim()
              .slice(0, 320)
              .replace(/[^\w.@+-]/g, '?')}`,
            from: request.ip,
          };
        }
        return { from: request.ip };
      };

      const mayReadStats = (person: string) => options.tokens.holds(person, 'audit:read');

      // The chart reads up to 200 turns; every page load of every reader shares one reading a minute (the same
      // numbers for all: it needs audit:read, which sees everything).
      // One reading of the turns makes both the chart and the suggested rules.
      let chart: { at: number; value: Promise<{ svg: string; suggestions: string; truncated: boolean }> } | undefined;
      const chartOfLastWeek = () => {
        const now = Date.now();
        if (chart && now - chart.at < 60_000) return chart.value;
        const window = {
          since: new Date(now - defaultStatsWindowMs),
          until: new Date(now),
          maxTurns: defaultStatsTurnLimit,
        };
        const records = readWindowRecords(context, window);
        const value = Promise.all([
          computeApprovalStats(context, window, records),
          computeApprovalSuggestions(context, window, {}, records),
        ]).then(([stats, suggested]) => ({
          svg: renderApprovalStatsChart(stats, { idPrefix: 'inbox-stats' }),
          suggestions: renderSuggestions(suggested.suggestions, suggested.thresholds),
          truncated: stats.truncated,
        }));
        chart = { at: now, value };
        // A failed reading is not kept: the next page load tries again.
        value.catch(() => (chart = undefined));
        return value;
      };

      const listFor = async (person: string): Promise<{ approvals: InboxApproval[]; unansweredTurns: number }> => {
        const caller: Caller = { person, scopes: new Set(['approvals:decide']) };
        const listing = await listPendingApprovals(
          context.tollgate,
          {},
          (approval) => mayDecide(caller, approval),
          context.listing,
        );
        const approvals = await Promise.all(
          listing.approvals.map(async (approval): Promise<InboxApproval> => {
            const requester = await requesterOfTurn(context, approval.workflowId);
            return { ...approval, ...(requester !== undefined && { requester }) };
          }),
        );
        return { approvals, unansweredTurns: listing.unansweredTurns };
      };

      const requesterOfTurn = (inner: GatewayContext, workflowId: string): Promise<string | undefined> => {
        let requester = requesters.get(workflowId);
        if (!requester) {
          requester = withReadDeadline(inner.tollgate, inner.readTimeoutMs, () =>
            requesterOf(inner.tollgate, workflowId),
          ).catch(() => {
            requesters.delete(workflowId);
            return undefined;
          });
          if (requesters.size >= 5_000) requesters.delete(requesters.keys().next().value as string);
          requesters.set(workflowId, requester);
        }
        return requester;
      };

      const limit = app.createRateLimit({
        max: options.rateLimit?.max ?? 20,
        timeWindow: options.rateLimit?.timeWindowMs ?? 60_000,
        keyGenerator: (request) => `inbox-sign-in:${request.ip}`,
      });

      app.get(inboxAssetPaths.script, async (_request, reply) =>
        inboxHeaders(reply).type('text/javascript; charset=utf-8').send(inboxScript),
      );
      app.get(inboxAssetPaths.style, async (_request, reply) =>
        inboxHeaders(reply).type('text/css; charset=utf-8').send(inboxStyle),
      );

      // Pages: a person with a browser reads every answer, errors included.
      await app.register(async (scope) => {
        scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
          done(null, body),
        );
        scope.setErrorHandler((error: unknown, _request, reply) => {
          const problem = toGatewayError(error);
          if (problem.status >= 500) log.error({ err: error }, 'an inbox request failed');
          return sendInboxPage(reply, inboxMessagePage(problem.status, problem.title, problem.detail));
        });
        const limited = async (request: FastifyRequest, reply: FastifyReply) => {
          const result = await limit(request);
          if (result.isAllowed || !result.isExceeded) return;
          reply.header('retry-after', String(result.ttlInSeconds));
          throw new GatewayError('rate-limited', `Too many requests; retry in ${result.ttlInSeconds} s.`);
        };

        scope.get(inboxPaths.page, async (request, reply) => {
          const user = await userOf(request);
          if (user === 'refused') return sendInboxPage(reply, notAllowedPage());
          if (!user) return sendInboxPage(reply, signInPage({ emailSignIn }));
          const { approvals, unansweredTurns } = await listFor(user.person);
          return sendInboxPage(
            reply,
            inboxPage(user, approvals, unansweredTurns, new Date(), {
              ...(mayReadStats(user.person) && { statsUrl: inboxPaths.stats }),
            }),
          );
        });

        // The standing grants: in force (use count, expiry, who gave them) with a one-click Revoke, and recently ended.
        scope.get(inboxPaths.grants, async (request, reply) => {
          const user = await userOf(request);
          if (user === 'refused') return sendInboxPage(reply, notAllowedPage());
          if (!user) return sendInboxPage(reply, signInPage({ emailSignIn }));
          const revoked = revokedQueryOf(request.query);
          const grants = await context.grants.list();
          const gone = revoked !== undefined ? grants.find((grant) => grant.grantId === revoked) : undefined;
          const notice =
            gone?.revokedAt !== undefined
              ? `Revoked ${gone.grantId}: from now on, calls it covered ask again.`
              : undefined;
          return sendInboxPage(reply, grantsPage(user, grants, new Date(), { ...(notice && { notice }) }));
        });

        scope.post(inboxPaths.revokeGrant, async (request, reply) => {
          if (originRefusal(request)) return sendInboxPage(reply, foreignFormPage());
          const user = await userOf(request);
          if (user === 'refused') return sendInboxPage(reply, notAllowedPage());
          if (!user) return sendInboxPage(reply, signInPage({ emailSignIn }));
          const { grantId } = parseInput(grantParamsSchema, request.params, 'params');
          const verdict = context.decisionLimiter.take(user.person);
          if (!verdict.allowed) {
            throw new GatewayError(
              'rate-limited',
              `Too many decisions by you; try again in ${verdict.retryAfterSeconds} s.`,
            );
          }
          await context.grants.revoke({ person: user.person, identity: user.identity }, grantId, 'inbox');
          return inboxHeaders(reply).redirect(`${inboxPaths.grants}?revoked=${encodeURIComponent(grantId)}`, 303);
        });

        scope.post(inboxPaths.signIn, { onRequest: limited }, async (request, reply) => {
          if (originRefusal(request)) return sendInboxPage(reply, foreignFormPage());
          const address = parseSignInForm(request.body);
          if (!emailSignIn) return sendInboxPage(reply, signInPage({ emailSignIn }));
          const found = inboxPersonOf(address, context.people, options.tokens);
          const now = Date.now();
          if (found && (lastMailed.get(found.address) ?? 0) + 60_000 <= now) {
            lastMailed.set(found.address, now);
            if (lastMailed.size > 10_000) lastMailed.delete(lastMailed.keys().next().value as string);
            const token = issueInboxValue(
              { purpose: 'inbox-sign-in', person: found.person, identity: `email:${found.address}` },
              keys[0] as string,
              { lifetimeMs: linkLifetimeMs },
            );
            const mail = signInMail(`${publicUrl}/inbox/sign-in/${token}`, new Date(now + linkLifetimeMs));
            // Sent after answering: a known address must not take longer to answer than an unknown one.
            void (options.mail as InboxMailer).transport
              .sendMail({
                from: (options.mail as InboxMailer).from,
                to: found.address,
                ...mail,
                textEncoding: 'base64',
              })
              .catch((error: unknown) => log.error({ err: error }, 'an inbox sign-in mail could not be sent'));
          }
          return sendInboxPage(reply, signInSentPage());
        });

        // `silent`: the URL carries the link, which is a credential.
        scope.get(inboxPaths.signInLink, { logLevel: 'silent', onRequest: limited }, async (request, reply) => {
          const link = await verifyLink(request, log);
          if (!link.ok) return sendInboxPage(reply, link.page);
          return sendInboxPage(reply, confirmSignInPage(link.address));
        });

        scope.post(inboxPaths.signInLink, { logLevel: 'silent', onRequest: limited }, async (request, reply) => {
          if (originRefusal(request)) return sendInboxPage(reply, foreignFormPage());
          const link = await verifyLink(request, log);
          if (!link.ok) return sendInboxPage(reply, link.page);
          // Claimed in the shared store: of every gateway, one lets this link through, once.
          if (!(await usedTokens.claim([`inbox-sign-in:${link.id}`], new Date(link.exp * 1000)))) {
            return sendInboxPage(reply, usedLinkPage());
          }
          const session = issueInboxValue(
            { purpose: 'inbox-session', person: link.person, identity: `email:${link.address}` },
            keys[0] as string,
            { lifetimeMs: sessionLifetimeMs },
          );
          const maxAge = Math.floor(sessionLifetimeMs / 1000);
          return inboxHeaders(reply)
            .header('set-cookie', cookieHeader(session, maxAge, secure || request.protocol === 'https'))
            .redirect(inboxPaths.page, 303);
        });

        scope.post(inboxPaths.signOut, async (request, reply) => {
          if (originRefusal(request)) return sendInboxPage(reply, foreignFormPage());
          const user = await userOf(request);
          // The cookie alone would survive a copy: the session itself is retired, for every gateway.
          if (user && user !== 'refused' && user.session) {
            await usedTokens.claim([`inbox-session:${user.session.id}`], new Date(user.session.exp * 1000));
          }
          return inboxHeaders(reply)
            .header('set-cookie', cookieHeader('', 0, secure || request.protocol === 'https'))
            .redirect(inboxPaths.page, 303);
        });

        async function verifyLink(
          request: FastifyRequest,
          logger: FastifyBaseLogger,
        ): Promise<
          | { ok: true; person: string; address: string; id: string; exp: number }
          | { ok: false; page: ReturnType<typeof inboxMessagePage> }
        > {
          const verified = verifyInboxValue(
            (request.params as Record<string, unknown>)['*'],
            'inbox-sign-in',
            keys,
            new Date(),
          );
          if (!verified.ok) {
            logger.warn({ reason: verified.reason }, 'refused an inbox sign-in link');
            return verified.reason === 'expired'
              ? { ok: false, page: inboxMessagePage(410, 'This link has expired', 'Ask for a new sign-in link.') }
              : {
                  ok: false,
                  page: inboxMessagePage(
                    400,
                    'This link is not valid',
                    'Check that the whole link was opened, or ask for a new one.',
                  ),
                };
          }
          const { claims } = verified;
          if (await usedTokens.isUsed([`inbox-sign-in:${claims.id}`])) return { ok: false, page: usedLinkPage() };
          const found = inboxPersonOf(claims.identity.replace(/^email:/, ''), context.people, options.tokens);
          if (!found || found.person !== claims.person) return { ok: false, page: notAllowedPage() };
          return { ok: true, person: found.person, address: found.address, id: claims.id, exp: claims.exp };
        }
      });

      // What the page's script calls: JSON in and out, problem+json on error.
      await app.register(async (scope) => {
        const requireUser = async (request: FastifyRequest): Promise<InboxUser> => {
          const user = await userOf(request);
          if (user === 'refused') throw new GatewayError('forbidden', 'Your address may not decide approvals here.');
          if (!user) throw new GatewayError('unauthorized', 'Sign in to the inbox first.');
          return user;
        };

        // The chart and the suggested rules of the last 7 days, for those whose tokens may read the audit (the right of
        // GET /v1/approvals/stats and /suggestions).
        scope.get(inboxPaths.stats, async (request, reply) => {
          inboxHeaders(reply);
          const user = await requireUser(request);
          if (!mayReadStats(user.person)) {
            throw new GatewayError('forbidden', 'Approval statistics need a token with audit:read.');
          }
          return chartOfLastWeek();
        });

        scope.get(inboxPaths.approvals, async (request, reply) => {
          inboxHeaders(reply);
          const user = await requireUser(request);
          const { approvals, unansweredTurns } = await listFor(user.person);
          const now = new Date();
          return {
            approvals: approvals.map((approval) => ({
              approvalId: approval.approvalId,
              toolName: approval.toolName,
              ...(approval.requester !== undefined && { requester: approval.requester }),
              quorumText: quorumText(
                approval.votes?.length ?? 0,
                approval.quorum ?? 1,
                approval.votes?.some((vote) => vote.approver === user.person) ?? false,
              ),
              html: approvalItemHtml(approval, user.person, now),
            })),
            ...(unansweredTurns > 0 && { unansweredText: unansweredText(unansweredTurns) }),
          };
        });

        scope.post(inboxPaths.decision, async (request, reply) => {
          inboxHeaders(reply);
          let user: InboxUser;
          let approvalId: string;
          let body: ReturnType<typeof decisionBodySchema.parse>;
          try {
            user = await requireUser(request);
            approvalId = parseInput(approvalParamsSchema, request.params, 'params').approvalId;
            // The REST decision's body: `input` is edited arguments, which the decisions check (editor right, schema) and bind.
            body = parseInput(decisionBodySchema, request.body, 'body');
          } catch (error) {
            // Not signed in, an address that may not decide, a request that does not parse: audited with what is known.
            await context.decisions.recordRefusal(
              await refusedSenderOf(request),
              'inbox',
              {
                ...(approvalParamsSchema.safeParse(request.params).data ?? {}),
                ...(decisionBodySchema.safeParse(request.body).success && {
                  approved: (request.body as { approved: boolean }).approved,
                }),
              },
              toGatewayError(error),
            );
            throw error;
          }
          const actor: DecisionActor = { person: user.person, identity: user.identity };
          const decision: DecisionRequest = {
            approvalId,
            approved: body.approved,
            ...(body.reason !== undefined && { reason: body.reason }),
            ...(body.argumentsDigest !== undefined && { argumentsDigest: body.argumentsDigest }),
            ...(body.input !== undefined && { input: body.input as DecisionRequest['input'] }),
          };
          const refuse = async (refusal: GatewayError): Promise<never> => {
            await context.decisions.recordRefusal(actor, 'inbox', decision, refusal);
            throw refusal;
          };
          const origin = originRefusal(request);
          if (origin)
            await refuse(new GatewayError('forbidden', `The decision was posted from another site (${origin}).`));
          const verdict = context.decisionLimiter.take(user.person);
          if (!verdict.allowed) {
            reply.header('retry-after', String(verdict.retryAfterSeconds));
            await refuse(
              new GatewayError(
                'rate-limited',
                `Too many decisions by you; try again in ${verdict.retryAfterSeconds} s.`,
              ),
            );
          }
          // "Approve and allow…": the one path every channel takes (the rules decide there, not on this page).
          if (body.allow) {
            const { allowed, ...recorded } = await context.grants.approveAndAllow(actor, decision, body.allow, 'inbox');
            const sentence = `${sentenceOf(recorded, user.person)} ${allowedSentence(allowed, new Date())}`;
            return { approvalId, decision: recorded.decision, sentence, recorded, allowed };
          }
          const recorded = await context.decisions.decideOne(actor, decision, 'inbox');
          return { approvalId, decision: recorded.decision, sentence: sentenceOf(recorded, user.person), recorded };
        });
      });
    },
  } as GatewayExtension;
  return extension;
}

/** A decision's outcome as a sentence for the person who made it. */
export function sentenceOf(recorded: ToolApprovalAuditEntry, person: string): string {
  const tool = recorded.toolName;
  switch (recorded.decision) {
    case 'expired':
      return `${tool} expired at ${recorded.decidedAt}; the call was denied and your decision is not applied.`;
    case 'awaiting-quorum': {
      const needed = Math.max(0, (recorded.quorum ?? 1) - (recorded.votes?.length ?? 0));
      return `Your approval of ${tool} is counted; ${needed} more needed.`;
    }
    default: {
      const by = recorded.approver === person ? 'you' : (recorded.approver ?? 'an unnamed approver');
      const reason = recorded.reason ? ` (reason: ${recorded.reason})` : '';
      return `${tool} ${recorded.decision} by ${by}${reason}.`;
    }
  }
}

function parseSignInForm(body: unknown): string {
  if (typeof body !== 'string') {
    throw new GatewayError('unsupported-media-type', 'Send the form as application/x-www-form-urlencoded.');
  }
  const fields = new URLSearchParams(body);
  const names = [...new Set(fields.keys())];
  const emails = fields.getAll('email');
  if (names.some((name) => name !== 'email') || emails.length !== 1 || (emails[0] as string).length > 320) {
    throw new GatewayError('invalid-request', 'Send one field, email, with your address.');
  }
  return (emails[0] as string).trim();
}

/** The grant a revocation redirected back about (`?revoked=grant-…`), when the query names one. */
function revokedQueryOf(query: unknown): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.revoked;
  return typeof value === 'string' && /^grant-[0-9a-f]{8,32}$/.test(value) ? value : undefined;
}

function cookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === cookieName) return value.join('=');
  }
  return undefined;
}

// HttpOnly: the page's script never reads it; SameSite=Lax: sent when a person follows an "Open in inbox" link,
// never with another site's POST (which the origin check refuses anyway).
function cookieHeader(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${cookieName}=${value}`,
    'Path=/inbox',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

function usedLinkPage() {
  return inboxMessagePage(410, 'This link has already been used', 'Each sign-in link works once; ask for a new one.');
}

function notAllowedPage() {
  return inboxMessagePage(
    403,
    'Not allowed',
    'Your address may not decide approvals here. Ask the operator to add you.',
  );
}

function foreignFormPage() {
  return inboxMessagePage(403, 'Refused', 'The form was posted from another site; open the inbox and try there.');
}

/** The approver inbox: sign-in by mail, the list of what waits for a person, decisions from the page. */
export const inboxChannel = inboxExtension;
