import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { resolvePerson } from '../../identity';
import type { DecisionTokenClaims, DecisionTokenRefusal } from '../../notifications/email/decision-token';
import { verifyDecisionToken } from '../../notifications/email/decision-token';
import type { ToolApprovalAuditEntry } from '../../protocol';
import type { GatewayExtension } from '../gateway-options';
import type { GatewayContext } from '../gateway-context';
import { GatewayError } from '../http/gateway-error';
import { toGatewayError } from '../http/to-gateway-error';
import { checkFormOrigin } from './check-form-origin';
import { confirmationPage, messagePage, sendPage, type DecisionPage } from './decision-pages';
import { parseDecisionForm } from './parse-decision-form';
import { LocalUsedTokenStore, type UsedTokenStore } from './used-token-store';

/**
 * The route of a decision link. A wildcard rather than `:token`: a token is a few hundred characters,
 * and Fastify refuses route parameters longer than 100.
 */
export const emailDecisionRoute = '/email/decisions/*';

/** What the email routes need. */
export interface EmailExtensionOptions {
  /** The link secrets: old and new both while rotating. */
  secrets: readonly string[];
  /** Where used links are remembered; in memory by default. */
  usedTokens?: UsedTokenStore;
  /**
   * The gateway's public URL, whose origin a form must be posted from. When absent, the origin the
   * request's own `Host` names (behind a proxy that rewrites it, set this).
   */
  publicUrl?: string;
  /** Requests to these routes per window from one address (default 30 per minute). */
  rateLimit?: { max?: number; timeWindowMs?: number };
}

// The refused token's reason decides the page; none of them says more than that.
const refusalPages: Record<DecisionTokenRefusal, DecisionPage> = {
  malformed: messagePage(400, 'This link is not valid', 'Check that the whole link was opened, or ask for a new one.'),
  signature: messagePage(401, 'This link is not valid', 'Check that the whole link was opened, or ask for a new one.'),
  expired: messagePage(
    410,
    'This link has expired',
    'This decision link has expired. Ask for a new one if the decision is still needed.',
  ),
};

const usedPage = messagePage(
  410,
  'This link has already been used',
  'A decision was already made with this link or with its sibling; each mail decides once.',
);

/**
 * The routes behind email decision links. `GET /email/decisions/<token>` (and HEAD) never decides, since
 * mail scanners fetch links: it shows what will be decided and a form. The form's POST decides, once:
 * the token is verified, the form must come from the gateway's own page (`Origin`, `Sec-Fetch-Site`), the
 * link and its sibling are retired before the decision is made, and the decision goes through the
 * gateway's decisions as `email:<address>` from the signed token, on the `email` channel of the audit.
 * Pages are never cached and send no Referer; requests to these routes are not logged, since their URLs
 * are credentials.
 *
 * @example
 * const gateway = await createGateway({
 *   tollgate,
 *   tokens,
 *   extensions: [emailExtension({ secrets: [process.env.TOLLGATE_EMAIL_LINK_SECRET!] })],
 * });
 */
export function emailExtension(options: EmailExtensionOptions): GatewayExtension {
  const secrets = options.secrets.filter((secret) => secret.length > 0);
  if (secrets.length === 0) throw new TypeError('emailExtension needs at least one link secret.');
  const usedTokens = options.usedTokens ?? new LocalUsedTokenStore();
  const publicOrigin = options.publicUrl ? new URL(options.publicUrl).origin : undefined;
  return {
    name: 'email',
    publicPaths: [emailDecisionRoute],
    async register(app, context) {
      const log = app.log;
      const limit = app.createRateLimit({
        max: options.rateLimit?.max ?? 30,
        timeWindow: options.rateLimit?.timeWindowMs ?? 60_000,
        keyGenerator: (request) => `email-link:${request.ip}`,
      });

      // Encapsulated: the form parser, the HTML error pages and the rate limit apply to these routes only.
      await app.register(async (scope) => {
        scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
          done(null, body),
        );
        // A person with a browser reads these answers: every error is a page, never a stack trace.
        scope.setErrorHandler((error: unknown, _request, reply) => {
          const problem = toGatewayError(error);
          if (problem.status >= 500) log.error({ err: error }, 'an email decision request failed');
          // The gateway's own 415 asks for JSON; this form is urlencoded.
          const detail =
            problem.kind === 'unsupported-media-type'
              ? 'Send the form as application/x-www-form-urlencoded, as the confirmation page does.'
              : problem.detail;
          return sendPage(reply, messagePage(problem.status, problem.title, detail));
        });
        scope.addHook('onRequest', async (request, reply) => {
          const result = await limit(request);
          if (result.isAllowed || !result.isExceeded) return;
          reply.header('retry-after', String(result.ttlInSeconds));
          const problem = new GatewayError('rate-limited', `Too many requests; retry in ${result.ttlInSeconds} s.`);
          // A POST is a decision attempt, refused before its link is read (kept as a flood is: counted).
          if (request.method === 'POST')
            await context.decisions.recordRefusal({ from: request.ip }, 'email', {}, problem);
          throw problem;
        });

        // `silent`: Fastify would log each request's URL, and the URL carries the token.
        scope.get(emailDecisionRoute, { logLevel: 'silent' }, async (request, reply) => {
          const verified = verify(request, secrets, log);
          if (!verified.ok) return sendPage(reply, verified.page);
          const { claims } = verified;
          if (await usedTokens.isUsed(keysOf(claims))) return sendPage(reply, usedPage);
          return sendPage(reply, await pageBeforeDeciding(context, claims));
        });

        scope.post(emailDecisionRoute, { logLevel: 'silent' }, async (request, reply) => {
          const verified = verify(request, secrets, log);
          if (!verified.ok) {
            // Nothing of a link that does not verify is believed: kept as an unauthenticated attempt, its cause only.
            await context.decisions.recordRefusal(
              { from: request.ip },
              'email',
              {},
              { kind: `link-${verified.reason}`, detail: linkRefusals[verified.reason] },
            );
            return sendPage(reply, verified.page);
          }
          const { claims } = verified;
          const refusal = checkFormOrigin({
            origin: request.headers.origin,
            fetchSite: request.headers['sec-fetch-site'],
            ownOrigin: publicOrigin ?? `${request.protocol}://${request.host}`,
          });
          if (refusal) {
            const detail = 'The form was posted from another site; open the link from your mail and confirm there.';
            await recordRefusal(context, request, claims, undefined, 'forbidden', `${detail} (${refusal})`);
            return sendPage(reply, messagePage(403, 'Refused', detail));
          }
          let reason: string | undefined;
          try {
            ({ reason } = parseDecisionForm(request.body));
          } catch (error) {
            const problem = toGatewayError(error);
            await recordRefusal(context, request, claims, undefined, problem.kind, problem.detail);
            throw error;
          }
          // The address the link was issued to, as a person: unmapped addresses decide nothing.
          const resolved = personOfLink(context, claims);
          if (!resolved.ok) {
            await recordRefusal(context, request, claims, reason, 'forbidden', resolved.reason);
            return sendPage(reply, messagePage(403, 'Refused', resolved.reason));
          }
          const verdict = context.decisionLimiter.take(resolved.person);
          if (!verdict.allowed) {
            const detail = `Too many decisions by you; try again in ${verdict.retryAfterSeconds} s.`;
            await recordRefusal(context, request, claims, reason, 'rate-limited', detail);
            reply.header('retry-after', String(verdict.retryAfterSeconds));
            return sendPage(reply, messagePage(429, 'Too many decisions', detail));
          }
          const keys = keysOf(claims);
          if (!(await usedTokens.claim(keys, new Date(claims.exp * 1000)))) {
            await recordRefusal(
              context,
              request,
              claims,
              reason,
              'link-used',
              'The link or its sibling was already used.',
            );
            return sendPage(reply, usedPage);
          }
          const actor = { person: resolved.person, identity: resolved.identity };
          return sendPage(reply, await decide(context, claims, actor, reason, () => usedTokens.release(keys), log));
        });
      });
    },
  };
}

// The person the link's address is, by the one resolver every channel uses.
function personOfLink(context: GatewayContext, claims: DecisionTokenClaims) {
  return resolvePerson(context.people, { channel: 'email', address: claims.approver.replace(/^email:/, '') });
}

type Verified =
  { ok: true; claims: DecisionTokenClaims } | { ok: false; page: DecisionPage; reason: DecisionTokenRefusal };

// What the audit says of a link that did not verify: the cause, never the link.
const linkRefusals: Record<DecisionTokenRefusal, string> = {
  malformed: 'A decision form was posted with something that is not a decision link.',
  signature: 'A decision form was posted with a link whose signature matches no link secret.',
  expired: 'A decision form was posted with an expired link.',
};

function verify(request: FastifyRequest, secrets: readonly string[], log: FastifyBaseLogger): Verified {
  const token = (request.params as Record<string, unknown>)['*'];
  const verified = verifyDecisionToken(token, { secrets, now: new Date() });
  if (verified.ok) return verified;
  // The reason only: the token is a credential, even a broken one.
  log.warn({ reason: verified.reason, method: request.method }, 'refused an email decision link');
  return { ok: false, page: refusalPages[verified.reason], reason: verified.reason };
}

// The link's own id and its pair's: claiming both retires this link and its sibling together.
function keysOf(claims: DecisionTokenClaims): string[] {
  return [`jti:${claims.jti}`, `pair:${claims.pair}`];
}

// What a GET shows: the form while the approval waits, otherwise how it ended.
async function pageBeforeDeciding(context: GatewayContext, claims: DecisionTokenClaims): Promise<DecisionPage> {
  let state;
  try {
    state = await context.tollgate.state(claims.workflowId);
  } catch (error) {
    const problem = toGatewayError(error);
    if (problem.kind === 'unknown-turn') return messagePage(404, 'Unknown approval', 'There is no such turn any more.');
    throw error;
  }
  const pending = state.pending.find((approval) => approval.approvalId === claims.approvalId);
  const recorded = state.audit.find((entry) => entry.approvalId === claims.approvalId);
  if (recorded) {
    const resolved = personOfLink(context, claims);
    return outcomePage(recorded, claims, resolved.ok ? resolved.person : resolved.identity);
  }
  // A turn that halted with it pending still lists it; the POST then says the turn takes no more decisions.
  if (pending) return confirmationPage(claims, pending);
  return messagePage(404, 'Unknown approval', 'The turn has no such approval.');
}

async function decide(
  context: GatewayContext,
  claims: DecisionTokenClaims,
  actor: { person: string; identity: string },
  reason: string | undefined,
  release: () => Promise<void>,
  log: FastifyBaseLogger,
): Promise<DecisionPage> {
  try {
    // The link carries the digest of the arguments the mail showed; the decision is bound to it.
    const recorded = await context.decisions.decideOne(
      actor,
      {
        approvalId: claims.approvalId,
        approved: claims.decision === 'approve',
        ...(claims.argumentsDigest !== undefined && { argumentsDigest: claims.argumentsDigest }),
        ...(reason !== undefined && { reason }),
      },
      'email',
    );
    return outcomePage(recorded, claims, actor.person);
  } catch (error) {
    const problem = toGatewayError(error);
    // Only a decision that counted uses the link up. A refusal (self-approval, not an approver, a conflict) changed
    // nothing, and one not delivered (or not known to be) is safe to try again (a repeat is idempotent): either way
    // the link and its sibling are given back, so a requester's refused Approve leaves their Deny link working.
    await release().catch((releaseError: unknown) =>
      log.error({ err: releaseError }, 'a used email link could not be released'),
    );
    if (problem.status >= 500) {
      if (problem.kind === 'internal')
        log.error({ err: error, approvalId: claims.approvalId }, 'an email decision failed');
      return messagePage(503, 'Not decided yet', `${problem.detail} Open the link again in a moment.`);
    }
    // A late decision is gone for good; the page says "expired" in words a person reads.
    if (problem.kind === 'expired') return messagePage(410, 'Approval expired', problem.detail);
    if (problem.kind === 'turn-closed') return messagePage(410, 'Turn ended', problem.detail);
    return messagePage(problem.status, problem.title, problem.detail);
  }
}

function outcomePage(recorded: ToolApprovalAuditEntry, claims: DecisionTokenClaims, person: string): DecisionPage {
  const asked = claims.decision === 'approve' ? 'approved' : 'denied';
  const when = `at ${recorded.decidedAt}`;
  // Nobody denied it: a newer message replaced the turn, and the page says so rather than "denied by nobody".
  if (recorded.via === 'superseded')
    return messagePage(
      410,
      'Approval superseded',
      `A newer message replaced this request ${when}; the call was not run and a decision now is not applied.`,
    );
  switch (recorded.decision) {
    case 'expired':
      return messagePage(
        410,
        'Approval expired',
        `This approval expired ${when}; the call was denied and a decision now is not applied.`,
      );
    case 'awaiting-quorum': {
      const needed = (recorded.quorum ?? 1) - (recorded.votes?.length ?? 0);
      return messagePage(
        200,
        'Approval counted',
        `Your approval of ${recorded.toolName} is counted; ${needed} more needed.`,
      );
    }
    default: {
      const by = recorded.approver ?? 'an unnamed approver';
      if (recorded.decision !== asked) {
        return messagePage(
          409,
          'Already decided',
          `${recorded.toolName} was already ${recorded.decision} by ${by} ${when}; your decision is not applied.`,
        );
      }
      if (recorded.approver !== person) {
        return messagePage(200, `Already ${asked}`, `${recorded.toolName} was already ${asked} by ${by} ${when}.`);
      }
      return messagePage(200, `${capitalise(asked)}`, `${recorded.toolName} is ${asked} by ${by} ${when}.`);
    }
  }
}

// A refused POST, kept with what the signed link says: who it was mailed to, which approval, which decision.
async function recordRefusal(
  context: GatewayContext,
  request: FastifyRequest,
  claims: DecisionTokenClaims,
  reason: string | undefined,
  kind: string,
  detail: string,
): Promise<void> {
  const resolved = personOfLink(context, claims);
  await context.decisions.recordRefusal(
    { ...(resolved.ok && { person: resolved.person }), identity: resolved.identity, from: request.ip },
    'email',
    {
      approvalId: claims.approvalId,
      approved: claims.decision === 'approve',
      ...(reason !== undefined && { reason }),
    },
    { kind, detail },
    claims.workflowId,
  );
}

function capitalise(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** The email channel: the decision pages that signed links in approval mails open. */
export const emailChannel = emailExtension;
