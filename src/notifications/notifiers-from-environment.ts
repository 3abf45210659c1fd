import type { ApprovalNotifier } from './notification-types';
import { emailNotifierFromEnvironment } from './email';
import { slackNotifierFromEnvironment } from './slack';

/** The notifiers the environment configures: Slack with `SLACK_BOT_TOKEN`, email with `SMTP_URL` or `SMTP_HOST`. */
export function notifiersFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ApprovalNotifier[] {
  return [slackNotifierFromEnvironment(environment), emailNotifierFromEnvironment(environment)].filter(
    (notifier): notifier is NonNullable<typeof notifier> => notifier !== undefined,
  );
}
