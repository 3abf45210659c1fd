import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { SlackNotifier } from '../../notifications/slack/slack-notifier';
import type { GatewayExtension } from '../create-gateway';
import type { GatewayContext } from '../gateway-context';
import { GatewayError } from '../gateway-error';
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
}

/**
 * The Slack interactivity route, `POST /slack/interactivity`. Each request's signature is checked on the
 * raw bytes before anything is parsed; the clicker's identity (`slack:<user.id>`) comes only from the
 * signed payload. The route answers 200 at once, since Slack gives up after 3 seconds and a decision waits
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
            throw new GatewayError('unauthorized', 'The request does not carry a valid Slack signature.');
          }
          if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(headerOf(request, 'content-type') ?? '')) {
            throw new GatewayError(
              'unsupported-media-type',
              'Slack sends interactions as application/x-www-form-urlencoded.',
            );
          }
          const interaction = parseSlackInteraction(rawBody);
          if (interaction.type === 'click') {
            // Team and app are kept in the log beside the audit's `slack:<user>`: the audit line has no field for them.
            request.log.info(
              {
                approver: interaction.approver,
                teamId: interaction.teamId,
                appId: interaction.appId,
                approvalId: interaction.approvalId,
                approved: interaction.approved,
              },
              'Slack decision received',
            );
            const delivery = deliverInBackground(interaction, context, options, closing.signal, request.log);
            deliveries.add(delivery);
            void delivery.finally(() => deliveries.delete(delivery));
          }
          return reply.code(200).send();
        });
      });
    },
  };
}

async function deliverInBackground(
  click: SlackDecisionClick,
  context: GatewayContext,
  options: SlackExtensionOptions,
  signal: AbortSignal,
  log: FastifyBaseLogger,
): Promise<void> {
  try {
    const delivery = await deliverSlackDecision(context.decisions, click, options.deliveryRetry, signal);
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
      return undefined;
    }
  }
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
