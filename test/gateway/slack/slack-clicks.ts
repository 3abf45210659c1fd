import { signSlackRequest, slackInteractivityPath } from '../../../src/gateway/slack';
import { slackActionIds } from '../../../src/notifications/slack';
import type { GatewayResponse, RunningGateway } from '../gateway-fixture';

/** The signing secret of the test Slack app. */
export const testSigningSecret = 'test-signing-secret-0123456789abcdef';

/** A `block_actions` payload as Slack sends it for a click on one of Tollgate's buttons. */
export function clickPayload(
  approvalId: string,
  options: { user?: string; actionId?: string; approve?: boolean; channel?: string } = {},
): Record<string, unknown> {
  const user = options.user ?? 'U123';
  const actionId = options.actionId ?? (options.approve === false ? slackActionIds.deny : slackActionIds.approve);
  return {
    type: 'block_actions',
    user: { id: user, username: 'ana', name: 'Ana Lopez', team_id: 'T1' },
    api_app_id: 'A1',
    token: 'verification-token-not-used',
    container: { type: 'message', message_ts: '1700000001.000001', channel_id: options.channel ?? 'C1' },
    trigger_id: '1.2.3',
    team: { id: 'T1', domain: 'acme' },
    channel: { id: options.channel ?? 'C1', name: 'approvals' },
    response_url: 'https://hooks.slack.com/actions/T1/1/abc',
    actions: [
      {
        type: 'button',
        block_id: 'tollgate_decision',
        action_id: actionId,
        text: { type: 'plain_text', text: 'Approve' },
        value: approvalId,
        action_ts: '1700000002.000002',
      },
    ],
  };
}

/** A payload as the form body Slack posts: `payload=<url-encoded JSON>`, spaces as `+`. */
export function formBodyOf(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** Posts a body to the interactivity route, signed (by default with the test secret, now) or as `headers` say. */
export async function postToSlack(
  gateway: RunningGateway,
  body: string,
  options: { secret?: string; at?: number; headers?: Record<string, string>; signed?: boolean } = {},
): Promise<GatewayResponse> {
  const signature =
    options.signed === false
      ? {}
      : signSlackRequest(body, options.secret ?? testSigningSecret, options.at ?? Math.floor(Date.now() / 1000));
  return gateway.call('POST', slackInteractivityPath, {
    token: null,
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...signature, ...options.headers },
  });
}

/** Clicks a button: a signed request with a click payload. */
export function click(
  gateway: RunningGateway,
  approvalId: string,
  options: Parameters<typeof clickPayload>[1] = {},
): Promise<GatewayResponse> {
  return postToSlack(gateway, formBodyOf(clickPayload(approvalId, options)));
}
