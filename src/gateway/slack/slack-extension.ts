import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { resolvePerson } from '../../identity';
import { allowLabel, type Allow } from '../../protocol';
import type { SlackNotifier } from '../../notifications/slack/slack-notifier';
import type { GatewayExtension } from '../gateway-options';
import type { GatewayContext } from '../gateway-context';
import { GatewayError } from '../http/gateway-error';
import { toGatewayError } from '../http/to-gateway-error';
import { deliverSlackDecision, type SlackDelivery, type SlackDeliveryRetry } from './deliver-slack-decision';
import { parseSlackInteraction, type SlackDecisionClick } from './slack-interaction';
import { verifySlackRequest } from './verify-slack-request';

/** Where Slack sends button clicks: the app's Interactivity Request URL is `<gateway>/slack/interactivity`. */
export const slackInteractivityPath = '/slack/interactivity';

// How long closing the gateway waits for decisions being delivered.
const closeGraceMs = 5_000;

/** What the Slack routes need. */
export interface SlackExtensionOptions {
  /** The app's signing secrets; old and new both while rotating. */
  signingSecrets: readonly string[];
  /**
   * Tells a clicker privately when their decision was refused or could not be delivered. The message
   * itself is updated by the worker's notifier when the turn records the outcome, never from here.
   */
  notifier?: SlackNotifier;
  /** How a decision is retried after the click was acknowledged. */
  deliveryRetry?: SlackDeliveryRetry;
  /** Workspaces (`team.id`) whose clicks count; a click from any other is refused with 403. Any when absent. */
  teamIds?: readonly string[];
  /** Slack apps (`api_app_id`) whose clicks count; a click for any other is refused with 403. Any when absent. */
  appIds?: readonly string[];
  /**
   * The operator's default grant terms, which the "Approve and allow" button gives (through the same path as the REST
   * decision's `allow`); without them that button is refused. Give the worker's `SlackNotifier` the same terms, so
   * the button shows (`TOLLGATE_SLACK_ALLOW` sets both).
   */
  allow?: Allow;
}

/**
 * The Slack interactivity route, `POST /slack/interactivity`. Each request's signature is checked on the
 * raw bytes before anything is parsed; the clicker's identity (`user.id`, `team.id`) comes only from the
 * signed payload, and is resolved to a person of the identity map before anything is decided. Clicks from
 * other workspaces or apps than configured are refused (403), as are unmapped users and people over the
 * decision rate limit (acknowledged, audited, told privately). The route answers 200 at once, since Slack gives up after 3 seconds and a decision waits
 * for a worker, and then delivers the decision through the gateway's decisions, with retries while
 * Temporal cannot take it. Whether that person may decide is the turn's call, made when it applies it.
 *
 * @example
 * const gateway = await createGateway({
 *   tollgate,
 *   tokens,
 *   extensions: [slackExtension({ signingSecrets: [process.env.SLACK_SIGNING_SECRET!] })],
 * });
 */
export function slackExtension(options: SlackExtensionOptions): GatewayExtension {
  const signingSecrets = options.signingSecrets.filter((secret) => secret.length > 0);
  if (signingSecrets.length === 0) throw new TypeError('slackExtension needs at least one signing secret.');
  return {
    name: 'slack',
    publicPaths: [slackInteractivityPath],
    async register(app, context) {
      const closing = new AbortController();
      const deliveries = new Set<Promise<void>>();
      // Closing stops the retries and waits a little for tries under way, so a decision is not cut off
      // half-written; not for ever, since a try can wait on a worker that is not there.
      app.addHook('onClose', async () => {
        closing.abort();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...deliveries]),
          new Promise((resolve) => (timer = setTimeout(resolve, closeGraceMs))),
        ]);
        clearTimeout(timer);
      });

      // Encapsulated, so the raw-bytes parser applies to this route only and JSON routes keep theirs.
      await app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        // Every content type arrives as bytes: the signature is checked before any parsing, whatever was sent.
        scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

        scope.post(slackInteractivityPath, async (request, reply) => {
          const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          const verified = verifySlackRequest({
            rawBody,
            timestamp: headerOf(request, 'x-slack-request-timestamp'),
            signature: headerOf(request, 'x-slack-signature'),
            signingSecrets,
          });
          if (!verified.ok) {
            request.log.warn({ reason: verified.reason }, 'refused a Slack request that failed verification');
            const problem = new GatewayError('unauthorized', 'The request does not carry a valid Slack signature.');
            // Nothing of an unverified body is read: kept with its cause (a replay is a stale timestamp) and address.
            await context.decisions.recordRefusal(
              { from: request.ip },
              'slack',
              {},
              { kind: problem.kind, detail: `${problem.detail} (${verified.reason})` },
            );
            throw problem;
          }
          let interaction;
          try {
            if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(headerOf(request, 'content-type') ?? '')) {
              throw new GatewayError(
                'unsupported-media-type',
                'Slack sends interactions as application/x-www-form-urlencoded.',
              );
            }
            interaction = parseSlackInteraction(rawBody);
          } catch (error) {
            // Signed, but not a click Tollgate can read: who sent it is in what did not parse.
            await context.decisions.recordRefusal({ from: request.ip }, 'slack', {}, toGatewayError(error));
            throw error;
          }
          if (interaction.type === 'click') {
            // Team and app are kept in the log beside the audit line.
            request.log.info(
              {
                slackUser: interaction.userId,
                teamId: interaction.teamId,
                appId: interaction.appId,
                approvalId: interaction.approvalId,
                approved: interaction.approved,
              },
              'Slack decision received',
            );
            const admitted = await admitClick(interaction, context, options);
            if (admitted.type === 'refused-outright') throw admitted.problem;
            if (admitted.type === 'refused') {
              // Acknowledged (Slack shows nothing to the clicker on a 200) and told privately why not.
              void tellClicker(
                interaction,
                `Your click was not applied: ${admitted.problem.detail}`,
                options,
                request.log,
              );
            } else {
              const delivery = deliverInBackground(admitted.click, context, options, closing.signal, request.log);
              deliveries.add(delivery);
              void delivery.finally(() => deliveries.delete(delivery));
            }
          }
          return reply.code(200).send();
        });
      });
    },
  };
}

type Admission =
  | { type: 'admitted'; click: SlackDecisionClick }
  /** Refused and acknowledged: the clicker is a person, just not one who may decide now. */
  | { type: 'refused'; problem: GatewayError }
  /** Refused with the status itself: the click came from a workspace or app this gateway does not serve. */
  | { type: 'refused-outright'; problem: GatewayError };

/**
 * What the gateway checks of a verified click before it decides anything: the workspace and the app
 * are ours, the Slack user is a person of the identity map, and that person is within the decision
 * rate limit shared with every other channel. Every refusal is in the audit.
 */
async function admitClick(
  click: SlackDecisionClick,
  context: GatewayContext,
  options: SlackExtensionOptions,
): Promise<Admission> {
  const request = {
    approvalId: click.approvalId,
    approved: click.approved,
    ...(click.argumentsDigest !== undefined && { argumentsDigest: click.argumentsDigest }),
  };
  const foreign =
    (options.teamIds && (click.teamId === undefined || !options.teamIds.includes(click.teamId))
      ? `workspace ${click.teamId ?? '(none)'}`
      : undefined) ??
    (options.appIds && (click.appId === undefined || !options.appIds.includes(click.appId))
      ? `app ${click.appId ?? '(none)'}`
      : undefined);
  const resolved = resolvePerson(context.people, {
    channel: 'slack',
    userId: click.userId,
    ...(click.teamId !== undefined && { teamId: click.teamId }),
  });
  if (foreign) {
    const problem = new GatewayError('forbidden', `This gateway does not take clicks from Slack ${foreign}.`);
    await context.decisions.recordRefusal({ identity: resolved.identity }, 'slack', request, problem);
    return { type: 'refused-outright', problem };
  }
  if (!resolved.ok) {
    const problem = new GatewayError('forbidden', resolved.reason);
    await context.decisions.recordRefusal({ identity: resolved.identity }, 'slack', request, problem);
    return { type: 'refused', problem };
  }
  if (click.allow && !options.allow) {
    const problem = new GatewayError(
      'forbidden',
      'Approve and allow is not set up on this gateway (the operator sets its terms in TOLLGATE_SLACK_ALLOW); nothing was decided.',
    );
    await context.decisions.recordRefusal(resolved, 'slack', request, problem);
    return { type: 'refused', problem };
  }
  const verdict = context.decisionLimiter.take(resolved.person);
  if (!verdict.allowed) {
    const problem = new GatewayError(
      'rate-limited',
      `Too many decisions by you; try again in ${verdict.retryAfterSeconds} s.`,
    );
    await context.decisions.recordRefusal(resolved, 'slack', request, problem);
    return { type: 'refused', problem };
  }
  return { type: 'admitted', click: { ...click, approver: resolved.person, identity: resolved.identity } };
}

async function tellClicker(
  click: SlackDecisionClick,
  note: string,
  options: SlackExtensionOptions,
  log: FastifyBaseLogger,
): Promise<void> {
  if (!options.notifier || !click.channelId) return;
  try {
    await options.notifier.tellApprover({ channel: click.channelId, user: click.userId }, note);
  } catch (error) {
    log.warn({ err: error }, 'could not tell a Slack user why their click did not count');
  }
}

async function deliverInBackground(
  click: SlackDecisionClick,
  context: GatewayContext,
  options: SlackExtensionOptions,
  signal: AbortSignal,
  log: FastifyBaseLogger,
): Promise<void> {
  try {
    const delivery = await deliverSlackDecision(
      context.decisions,
      click,
      options.deliveryRetry,
      signal,
      options.allow && { grants: context.grants, allow: options.allow },
    );
    if (delivery.type === 'undelivered') {
      log.error(
        { approvalId: click.approvalId, approver: click.approver, attempts: delivery.attempts },
        `a Slack decision could not be delivered: ${delivery.problem.detail}`,
      );
    }
    const note = noteFor(click, delivery);
    if (note && options.notifier && click.channelId) {
      await options.notifier.tellApprover({ channel: click.channelId, user: click.userId }, note);
    }
  } catch (error) {
    log.error({ err: error, approvalId: click.approvalId }, 'a Slack decision failed after its acknowledgement');
  }
}

// What the clicker alone is told. Nothing when the decision went through: the shared message changes.
function noteFor(click: SlackDecisionClick, delivery: SlackDelivery): string | undefined {
  const asked = click.approved ? 'approval' : 'denial';
  switch (delivery.type) {
    case 'refused':
      return `Your ${asked} was not applied: ${delivery.problem.detail}`;
    case 'undelivered':
      return `Your ${asked} could not be delivered yet (${delivery.problem.detail}). Click again in a moment.`;
    case 'recorded': {
      const { decision } = delivery;
      if (decision.decision === 'awaiting-quorum') {
        const needed = (decision.quorum ?? 1) - (decision.votes?.length ?? 0);
        return `Your approval is counted; ${needed} more needed.`;
      }
      if (decision.approver !== undefined && decision.approver !== click.approver) {
        return `Already ${decision.decision} by ${decision.approver}; your click changed nothing.`;
      }
      // A grant is a lasting decision: its giver hears what it covers and how to take it back.
      if (delivery.allowed) {
        const grant = delivery.allowed;
        return `You approved ${decision.toolName} and allowed calls like it without asking (${allowLabel(allowOf(grant))}; grant ${grant.grantId}). Revoke it in the inbox's Standing grants or with \`tollgate grants revoke ${grant.grantId}\`.`;
      }
      return undefined;
    }
  }
}

/** A grant's terms as the allow that gave them, for {@link allowLabel}. */
function allowOf(grant: { forMs?: number; uses?: number; scope: { type: string } }): Allow {
  return {
    ...(grant.forMs !== undefined && { for: durationText(grant.forMs) }),
    ...(grant.uses !== undefined && { uses: grant.uses }),
    scope: grant.scope.type as NonNullable<Allow['scope']>,
  };
}

function durationText(milliseconds: number): string {
  if (milliseconds % 3_600_000 === 0) return `${milliseconds / 3_600_000}h`;
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000}m`;
  return `${Math.round(milliseconds / 1000)}s`;
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The Slack channel: the interactivity endpoint that takes Approve/Deny clicks, verified by Slack's signature. */
export const slackChannel = slackExtension;
