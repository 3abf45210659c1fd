import { slackNotifierFromEnvironment } from '../notifications/slack';
import type { GatewayExtension } from './gateway-options';
import { emailExtensionFromEnvironment } from './email';
import { slackExtension, slackSettingsFromEnvironment } from './slack';

/**
 * The channels the environment configures: Slack when `SLACK_SIGNING_SECRET` is set, email links
 * when `TOLLGATE_EMAIL_LINK_SECRET` is. The Slack bot
 * token, when present, lets the gateway tell a person privately why their click did not count.
 */
export function gatewayExtensionsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): GatewayExtension[] {
  const extensions: GatewayExtension[] = [];
  const slack = slackSettingsFromEnvironment(environment);
  if (slack) {
    const notifier = slackNotifierFromEnvironment(environment);
    extensions.push(slackExtension({ ...slack, ...(notifier && { notifier }) }));
  }
  const email = emailExtensionFromEnvironment(environment);
  if (email) extensions.push(email);
  return extensions;
}
