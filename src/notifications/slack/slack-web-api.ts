import type * as SlackWebApi from '@slack/web-api';

/**
 * Slack's Web API package, loaded the first time a Slack notifier is made from the environment or a Slack error is
 * read, instead of with this folder: a worker, gateway or `tollgate` command without Slack would otherwise load it at
 * start-up for nothing.
 */
export function slackWebApi(): typeof SlackWebApi {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@slack/web-api') as typeof SlackWebApi;
}
