import type { ApprovalNotifier } from './notification-types';
import { slackNotifierFromEnvironment } from './slack';

/** The notifiers the environment configures: Slack with `SLACK_BOT_TOKEN`. */
export function notifiersFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ApprovalNotifier[] {
  return [slackNotifierFromEnvironment(environment)].filter(
    (notifier): notifier is NonNullable<typeof notifier> => notifier !== undefined,
  );
}
