import { ApplicationFailure } from '@temporalio/common';
import { slackWebApi } from './slack-web-api';

// Slack answers these when it cannot serve the call right now; any other `error` names a fault in the
// call itself (a channel the bot is not in, a revoked token, a message that no longer exists).
const passingPlatformErrors = new Set([
  'ratelimited',
  'rate_limited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

interface SlackErrorFields {
  code?: unknown;
  statusCode?: unknown;
  data?: { error?: unknown };
  message?: string;
}

/**
 * Turns an error from the Slack Web API into a failure Temporal's retry policy can act on: rate limits,
 * Slack's own 5xx and network failures may pass (`SlackUnavailable`, retried); anything else is the
 * call's fault and retrying cannot help (`SlackRequestRejected`, not retried).
 *
 * @example
 * try {
 *   await client.chat.postMessage(message);
 * } catch (error) {
 *   throw classifySlackError(error, 'chat.postMessage');
 * }
 */
export function classifySlackError(error: unknown, method: string): ApplicationFailure {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as SlackErrorFields;
  const cause = error instanceof Error ? error : undefined;
  const platformError = typeof fields.data?.error === 'string' ? fields.data.error : undefined;
  const status = typeof fields.statusCode === 'number' ? fields.statusCode : undefined;
  const { ErrorCode } = slackWebApi();
  const rejected =
    (fields.code === ErrorCode.PlatformError &&
      platformError !== undefined &&
      !passingPlatformErrors.has(platformError)) ||
    (fields.code === ErrorCode.HTTPError && status !== undefined && status < 500 && status !== 429);
  const what = platformError ?? (status !== undefined ? `HTTP ${status}` : (fields.message ?? String(error)));
  if (rejected) {
    return ApplicationFailure.create({
      message: `Slack refused ${method}: ${what}`,
      type: 'SlackRequestRejected',
      nonRetryable: true,
      cause,
    });
  }
  return ApplicationFailure.create({
    message: `Slack is unavailable for ${method}: ${what}`,
    type: 'SlackUnavailable',
    cause,
  });
}
