import type { WebClient } from '@slack/web-api';
import { allowFromSetting, type Allow, type ToolApprovalAuditEntry } from '../../protocol';
import type {
  ApprovalNotice,
  ApprovalNoticeKind,
  ApprovalNotifier,
  NotificationReceipt,
  NotificationTarget,
} from '../notification-types';
import { approvalRequestMessage, approvalResolvedMessage } from './approval-message';
import { classifySlackError } from './slack-errors';
import { escapeSlackText } from './slack-text';
import { slackWebApi } from './slack-web-api';
import { inboxLinkOf } from '../inbox-link';

/** What a {@link SlackNotifier} needs. */
export interface SlackNotifierOptions {
  /** A Web API client holding the bot token (scope `chat:write`). */
  client: WebClient;
  /** The gateway's public URL: requests then carry an "Open in inbox" link. */
  gatewayUrl?: string;
  /**
   * The operator's default grant terms: requests then carry an "Approve and allow" button. Set the same terms on the
   * gateway's Slack channel (`TOLLGATE_SLACK_ALLOW` sets both), which applies them.
   */
  allow?: Allow;
}

/**
 * Posts approval requests to Slack channels as messages with Approve and Deny buttons, and updates the
 * same message when the approval is decided or expires (its buttons go). A click reaches the gateway's
 * `POST /slack/interactivity`, never this class. Errors come out classified for Temporal's retry policy
 * (`SlackUnavailable` is retried, `SlackRequestRejected` is not).
 *
 * @example
 * const notifier = new SlackNotifier({ client: new WebClient(process.env.SLACK_BOT_TOKEN) });
 * const worker = await createTollgateWorker({ connection, taskQueue, tools, model, notifiers: [notifier] });
 */
export class SlackNotifier implements ApprovalNotifier {
  readonly type = 'slack' as const;
  private readonly client: WebClient;
  private readonly gatewayUrl: string | undefined;
  private readonly allow: Allow | undefined;

  constructor(options: SlackNotifierOptions) {
    this.client = options.client;
    this.gatewayUrl = options.gatewayUrl;
    this.allow = options.allow;
  }

  /**
   * Posts the request (or a reminder, or a warning that it expires soon) to `target.channel`, with buttons; the
   * receipt names the message for the update that removes them.
   */
  async requested(
    notice: ApprovalNotice,
    target: NotificationTarget,
    kind: ApprovalNoticeKind,
  ): Promise<NotificationReceipt> {
    if (target.type !== 'slack') throw new TypeError(`The Slack notifier cannot send to a ${target.type} target.`);
    const message = approvalRequestMessage(notice, kind, {
      ...(this.gatewayUrl && { inbox: inboxLinkOf(this.gatewayUrl, notice.approval.approvalId) }),
      ...(this.allow && { allow: this.allow }),
    });
    let response: Awaited<ReturnType<WebClient['chat']['postMessage']>>;
    try {
      response = await this.client.chat.postMessage({ channel: target.channel, ...message });
    } catch (error) {
      throw classifySlackError(error, 'chat.postMessage');
    }
    // Slack answers with the channel's id even when the target named it (`#approvals`); chat.update needs the id.
    const channel = response.channel ?? target.channel;
    if (!response.ts) throw new TypeError(`Slack accepted the message for ${target.channel} but sent no ts.`);
    return { type: 'slack', channel, ts: response.ts };
  }

  /** Replaces the request message with the outcome: who decided what, when, and why; the buttons are removed. */
  async resolved(
    notice: ApprovalNotice,
    decision: ToolApprovalAuditEntry,
    receipt: NotificationReceipt,
  ): Promise<void> {
    if (receipt.type !== 'slack') throw new TypeError(`The Slack notifier cannot update a ${receipt.type} notice.`);
    try {
      await this.client.chat.update({
        channel: receipt.channel,
        ts: receipt.ts,
        ...approvalResolvedMessage(notice, decision),
      });
    } catch (error) {
      throw classifySlackError(error, 'chat.update');
    }
  }

  /**
   * Tells one person, and only them, something about their click (a refused or undeliverable decision),
   * without touching the shared message.
   */
  async tellApprover(where: { channel: string; user: string }, text: string): Promise<void> {
    try {
      await this.client.chat.postEphemeral({ channel: where.channel, user: where.user, text: escapeSlackText(text) });
    } catch (error) {
      throw classifySlackError(error, 'chat.postEphemeral');
    }
  }
}

/**
 * The Slack notifier configured by the environment, or undefined when `SLACK_BOT_TOKEN` is unset.
 *
 * | variable | meaning |
 * | --- | --- |
 * | `SLACK_BOT_TOKEN` | the bot token (`xoxb-…`) with `chat:write` |
 * | `SLACK_API_URL` | another Web API base URL (a test double); `https://slack.com/api/` by default |
 * | `TOLLGATE_GATEWAY_URL` | the gateway's public URL, for the "Open in inbox" link |
 * | `TOLLGATE_SLACK_ALLOW` | the operator's default grant terms (`for=1h,uses=10`): an "Approve and allow" button |
 *
 * @example
 * const notifiers = [slackNotifierFromEnvironment()].filter((notifier) => notifier !== undefined);
 */
export function slackNotifierFromEnvironment(environment: NodeJS.ProcessEnv = process.env): SlackNotifier | undefined {
  const token = environment.SLACK_BOT_TOKEN;
  if (!token) return undefined;
  const { WebClient } = slackWebApi();
  const client = new WebClient(token, {
    ...(environment.SLACK_API_URL && { slackApiUrl: environment.SLACK_API_URL }),
    // Temporal retries the activity, with backoff and a record in history; the client's own half-hour
    // of retries would outlast the activity's timeout.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const gatewayUrl = environment.TOLLGATE_GATEWAY_URL?.trim();
  const allow = environment.TOLLGATE_SLACK_ALLOW?.trim();
  return new SlackNotifier({
    client,
    ...(gatewayUrl && { gatewayUrl }),
    ...(allow && { allow: allowFromSetting(allow) }),
  });
}
