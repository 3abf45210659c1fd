import { z } from 'zod';
import { readSlackButtonValue, slackActionIds } from '../../notifications/slack/slack-action-ids';
import { GatewayError, type FieldProblem } from '../http/gateway-error';
import { findForbiddenKey } from '../http/json-body-parser';

/** A click on Approve or Deny, with who clicked as the signed payload says. */
export interface SlackDecisionClick {
  type: 'click';
  /**
   * Who decides: `slack:<user id>` as parsed; the person it resolves to once the gateway has looked it up
   * in the identity map.
   */
  approver: string;
  /** The channel identity (`slack:<team>/<user>`), kept beside the person for the audit. */
  identity?: string;
  /** The Slack user who clicked. */
  userId: string;
  /** Their workspace. */
  teamId?: string;
  /** The Slack app the click was sent to. */
  appId?: string;
  /** Where the message is, to tell the clicker privately how it went. */
  channelId?: string;
  /** The approval the button was for; it names the approval and grants nothing. */
  approvalId: string;
  /** Digest of the arguments the message showed, which the decision is bound to. */
  argumentsDigest?: string;
  approved: boolean;
  /** A click on "Approve and allow": approve, and grant the operator's default terms for calls like it. */
  allow?: true;
}

/** What a verified request to the interactivity URL asks for. */
export type SlackInteraction = SlackDecisionClick | { type: 'ssl-check' };

// An approvalId Tollgate makes is `<base64url>.<id>`; foreign ids are allowed, but only of this alphabet
// and length, so a value of any other shape is refused before Temporal is asked about it.
const approvalIdSchema = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9._:-]+$/, 'not an approvalId');

// Loose objects: Slack adds fields to its payloads over time, and only these are read.
const blockActionsSchema = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string().min(1).max(64) }),
  team: z.object({ id: z.string().min(1).max(64) }).nullish(),
  api_app_id: z.string().min(1).max(64).optional(),
  channel: z.object({ id: z.string().min(1).max(64) }).optional(),
  actions: z
    .array(
      z.object({
        action_id: z.enum([slackActionIds.approve, slackActionIds.deny, slackActionIds.approveAndAllow], {
          error: `not one of ${slackActionIds.approve}, ${slackActionIds.deny}, ${slackActionIds.approveAndAllow}`,
        }),
        // `<approvalId>` or `<approvalId>#<digest of the arguments shown>`.
        value: z
          .string()
          .min(1)
          .max(640)
          .regex(/^[A-Za-z0-9._:-]+(#[A-Za-z0-9_-]{1,100})?$/, 'not an approval button value')
          .refine(
            (value) => approvalIdSchema.safeParse(readSlackButtonValue(value).approvalId).success,
            'not an approvalId',
          ),
      }),
    )
    .min(1),
});

/**
 * Reads a request Slack sent to the interactivity URL. Call it only on a body whose signature was
 * verified: it trusts the payload's `user.id` as the clicker's identity. Refuses anything that is not a
 * click on one of Tollgate's buttons with a 400 {@link GatewayError}.
 *
 * @example
 * const interaction = parseSlackInteraction(rawBody);
 * if (interaction.type === 'click') await decisions.decideOne(interaction.approver, { ... }, 'slack');
 */
export function parseSlackInteraction(rawBody: Buffer): SlackInteraction {
  const form = new URLSearchParams(rawBody.toString('utf8'));
  const payloadText = form.get('payload');
  if (payloadText === null) {
    // Slack's certificate check carries no payload and asks only for a 200.
    if (form.get('ssl_check') === '1') return { type: 'ssl-check' };
    throw invalid([{ field: 'payload', message: 'a payload is required' }]);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(payloadText);
  } catch {
    throw new GatewayError('malformed-json', 'The payload is not valid JSON.');
  }
  const forbidden = findForbiddenKey(payload);
  if (forbidden) throw invalid([{ field: forbidden.field.replace(/^body/, 'payload'), message: forbidden.message }]);
  const parsed = blockActionsSchema.safeParse(payload);
  if (!parsed.success) {
    throw invalid(
      parsed.error.issues.map((issue) => ({
        field: ['payload', ...issue.path.map(String)].join('.'),
        message: issue.message,
      })),
    );
  }
  const { user, team, api_app_id: appId, channel, actions } = parsed.data;
  const [action] = actions as [(typeof actions)[number]];
  return {
    type: 'click',
    approver: `slack:${user.id}`,
    userId: user.id,
    ...(team?.id !== undefined && { teamId: team.id }),
    ...(appId !== undefined && { appId }),
    ...(channel?.id !== undefined && { channelId: channel.id }),
    ...readSlackButtonValue(action.value),
    approved: action.action_id !== slackActionIds.deny,
    ...(action.action_id === slackActionIds.approveAndAllow && { allow: true as const }),
  };
}

function invalid(errors: FieldProblem[]): GatewayError {
  return new GatewayError('invalid-request', errors.map((error) => `${error.field}: ${error.message}`).join('; '), {
    errors,
  });
}
