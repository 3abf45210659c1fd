import { slackNotifierFromEnvironment } from '../notifications/slack';
import type { ApproverTokens } from './auth/approver-tokens';
import { chatChannel, chatSettingsFromEnvironment } from './chat';
import { emailExtensionFromEnvironment } from './email';
import type { GatewayChannel } from './gateway-options';
import { inboxChannel, inboxOptionsFromEnvironment } from './inbox';
import { restChannel } from './routes/rest-channel';
import { slackChannel, slackSettingsFromEnvironment } from './slack';

/**
 * The channels `npm run gateway` and `npm run dev` serve, as the environment configures them: the REST API, the chat
 * routes (`TOLLGATE_CHAT_ALLOWED_ORIGINS` and the other chat settings), the approver inbox when
 * `TOLLGATE_INBOX_SESSION_KEY` is set, Slack when
 * `SLACK_SIGNING_SECRET` is, and email links when `TOLLGATE_EMAIL_LINK_SECRET` is. The Slack bot token, when present,
 * lets the gateway tell a person privately why their click did not count.
 */
export function gatewayChannelsFromEnvironment(
  tokens: ApproverTokens,
  environment: NodeJS.ProcessEnv = process.env,
): GatewayChannel[] {
  const channels: GatewayChannel[] = [
    restChannel(),
    chatChannel({ tokens, ...chatSettingsFromEnvironment(environment) }),
  ];
  const inbox = inboxOptionsFromEnvironment(tokens, environment);
  if (inbox) channels.push(inboxChannel(inbox));
  const slack = slackSettingsFromEnvironment(environment);
  if (slack) {
    const notifier = slackNotifierFromEnvironment(environment);
    channels.push(slackChannel({ ...slack, ...(notifier && { notifier }) }));
  }
  const email = emailExtensionFromEnvironment(environment);
  if (email) channels.push(email);
  return channels;
}
