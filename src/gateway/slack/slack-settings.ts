import { allowFromSetting, type Allow } from '../../protocol';

/** What the gateway's Slack routes need from the environment. */
export interface SlackSettings {
  /** The Slack app's signing secrets; more than one while a rotation is under way. */
  signingSecrets: string[];
  /** The workspaces (`team.id`) whose clicks count; any when absent. */
  teamIds?: string[];
  /** The Slack apps (`api_app_id`) whose clicks count; any when absent. */
  appIds?: string[];
  /** The operator's default grant terms, which "Approve and allow" gives; the button is refused when absent. */
  allow?: Allow;
}

/**
 * Reads `SLACK_SIGNING_SECRET`: the app's signing secret, or several separated by commas while rotating
 * (old and new both accepted until the old one is removed); `SLACK_TEAM_ID` and `SLACK_APP_ID` (each
 * comma-separated): the workspaces and apps whose clicks count; `TOLLGATE_SLACK_ALLOW` (`for=1h,uses=10`): the terms
 * "Approve and allow" grants (the worker's notifier reads the same variable to show the button). Undefined when unset, so a gateway without
 * Slack simply has no Slack routes.
 *
 * @example
 * const slack = slackSettingsFromEnvironment();
 * const gateway = await createGateway({ tollgate, tokens, extensions: slack ? [slackExtension(slack)] : [] });
 */
export function slackSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): SlackSettings | undefined {
  const text = environment.SLACK_SIGNING_SECRET;
  if (text === undefined || text.trim() === '') return undefined;
  const signingSecrets = text
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret.length > 0);
  if (signingSecrets.length === 0) {
    throw new TypeError('SLACK_SIGNING_SECRET holds no secret; set it to the signing secret of the Slack app.');
  }
  const teamIds = listOf(environment.SLACK_TEAM_ID);
  const appIds = listOf(environment.SLACK_APP_ID);
  const allow = environment.TOLLGATE_SLACK_ALLOW?.trim();
  return {
    signingSecrets,
    ...(teamIds && { teamIds }),
    ...(appIds && { appIds }),
    ...(allow && { allow: allowFromSetting(allow) }),
  };
}

function listOf(text: string | undefined): string[] | undefined {
  const values = (text ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
  return values.length > 0 ? values : undefined;
}
