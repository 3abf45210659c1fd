/** What the gateway's Slack routes need from the environment. */
export interface SlackSettings {
  /** The Slack app's signing secrets; more than one while a rotation is under way. */
  signingSecrets: string[];
}

/**
 * Reads `SLACK_SIGNING_SECRET`: the app's signing secret, or several separated by commas while rotating
 * (old and new both accepted until the old one is removed). Undefined when unset, so a gateway without
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
  return { signingSecrets };
}
