import { WebClient } from '@slack/web-api';
import type { ApprovalNotice } from '../../../src/notifications/notification-types';
import {
  SlackNotifier,
  slackActionIds,
  slackNotifierFromEnvironment,
  slackSectionTextLimit,
} from '../../../src/notifications/slack';
import type { ToolApprovalAuditEntry } from '../../../src/protocol';
import { startFakeSlackApi, type FakeSlackApi } from '../../support/fake-slack-api';

let slack: FakeSlackApi;
let notifier: SlackNotifier;

beforeAll(async () => {
  slack = await startFakeSlackApi();
  // No client-side retries: the worker's activity retry policy owns them.
  notifier = new SlackNotifier({
    client: new WebClient('xoxb-test-token', { slackApiUrl: slack.url, retryConfig: { retries: 0 } }),
  });
});
afterAll(async () => {
  await slack?.close();
});

const approvalId = 'dHVybi0x.0f3c5a';

function noticeFor(input: unknown, extra: Partial<ApprovalNotice> = {}): ApprovalNotice {
  return {
    workflowId: 'turn-1',
    approval: {
      approvalId,
      toolCallId: 'call-1',
      toolName: 'deleteFile',
      input,
      requestedAt: '2026-01-02T03:04:05.000Z',
      expiresAt: '2026-01-02T04:04:05.000Z',
      step: 1,
    },
    requester: 'ana',
    ...extra,
  };
}

type Block = { type: string; text?: { text: string }; elements?: Array<Record<string, unknown>> };

function textOf(blocks: Block[]): string {
  return JSON.stringify(blocks);
}

describe('SlackNotifier', () => {
  it('posts a request with the tool, its arguments, the requester, the turn, the expiry and two buttons carrying the approvalId', async () => {
    const receipt = await notifier.requested(
      noticeFor({ path: 'notes.txt' }),
      { type: 'slack', channel: '#approvals' },
      'request',
    );

    // Slack answers with the channel's id; the receipt keeps it, since chat.update needs the id.
    expect(receipt).toEqual({ type: 'slack', channel: 'CAPPROVALS', ts: expect.stringMatching(/^\d+\.\d+$/) });
    const [call] = slack.callsOf('chat.postMessage').slice(-1);
    expect(call).toMatchObject({ token: 'xoxb-test-token', args: { channel: '#approvals' } });
    expect(call?.args.text).toContain('Approval needed: deleteFile requested by ana (turn turn-1)');
    const blocks = call?.args.blocks as Block[];
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Approval needed' } });
    expect(textOf(blocks)).toContain('deleteFile');
    expect(textOf(blocks)).toContain('\\"path\\": \\"notes.txt\\"');
    expect(textOf(blocks)).toContain('Requested by *ana*');
    expect(textOf(blocks)).toContain('turn-1');
    expect(textOf(blocks)).toContain('Expires <!date^1767326645^');
    const actions = blocks.find((block) => block.type === 'actions');
    expect(actions?.elements).toEqual([
      expect.objectContaining({
        type: 'button',
        action_id: slackActionIds.approve,
        style: 'primary',
        value: approvalId,
      }),
      expect.objectContaining({ type: 'button', action_id: slackActionIds.deny, style: 'danger', value: approvalId }),
    ]);
    // The action ids the gateway's interactivity reads; "Approve and allow" shows only where the operator set its
    // terms (TOLLGATE_SLACK_ALLOW), so this request has two buttons.
    expect(slackActionIds).toEqual({
      approve: 'tollgate_approve',
      approveAndAllow: 'tollgate_approve_allow',
      deny: 'tollgate_deny',
    });
  });

  it('heads a reminder differently', async () => {
    await notifier.requested(noticeFor({ path: 'a' }), { type: 'slack', channel: 'C1' }, 'reminder');
    const blocks = slack.callsOf('chat.postMessage').slice(-1)[0]?.args.blocks as Block[];
    expect(blocks[0]?.text?.text).toBe('Reminder: approval still needed');
  });

  it('shortens long strings and long lists in the arguments, and escapes markup everywhere', async () => {
    const input = {
      command: '<!channel> rm -rf / && echo "done" > /dev/null',
      content: 'x'.repeat(20_000),
      lines: Array.from({ length: 500 }, (_, index) => index),
    };
    await notifier.requested(
      noticeFor(input, { requester: '<@U999> & co' }),
      { type: 'slack', channel: 'C1' },
      'request',
    );
    const call = slack.callsOf('chat.postMessage').slice(-1)[0];
    const rendered = textOf(call?.args.blocks as Block[]);
    expect(rendered).toContain('&lt;!channel&gt; rm -rf / &amp;&amp; echo');
    expect(rendered).toContain('(19700 more characters)');
    expect(rendered).toContain('(475 more items)');
    expect(rendered).toContain('Requested by *&lt;@U999&gt; &amp; co*');
    expect(rendered).not.toContain('<!channel>');
    expect(rendered).not.toContain('<@U999>');
    expect(call?.args.text).not.toContain('<@U999>');
  });

  it('cuts arguments that are still too long so every section stays under the 3000-character limit', async () => {
    const input = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`field${index}`, '<&>'.repeat(100)]));
    await notifier.requested(noticeFor(input), { type: 'slack', channel: 'C1' }, 'request');
    const blocks = slack.callsOf('chat.postMessage').slice(-1)[0]?.args.blocks as Block[];
    for (const block of blocks) {
      if (block.text) expect(block.text.text.length).toBeLessThanOrEqual(slackSectionTextLimit);
    }
    const argumentsText = blocks.find((block) => block.text?.text.startsWith('*Arguments*'))?.text?.text ?? '';
    expect(argumentsText.length).toBeGreaterThan(2500);
    expect(argumentsText).toMatch(/… \(truncated\)```$/);
    // A cut never leaves half an escape sequence behind.
    expect(argumentsText.replace(/&(amp|lt|gt);/g, '')).not.toMatch(/[&<>]/);
  });

  it('updates the message with who decided, what and why, and removes the buttons', async () => {
    const notice = noticeFor({ path: 'notes.txt' });
    const receipt = await notifier.requested(notice, { type: 'slack', channel: 'C1' }, 'request');
    const decision: ToolApprovalAuditEntry = {
      ...notice.approval,
      decision: 'denied',
      reason: 'not during the <freeze>',
      approver: 'slack:U123',
      decidedAt: '2026-01-02T03:10:00.000Z',
      via: 'update',
    };
    await notifier.resolved(notice, decision, receipt);

    const [update] = slack.callsOf('chat.update').slice(-1);
    expect(update?.args).toMatchObject({
      channel: receipt.type === 'slack' && receipt.channel,
      ts: receipt.type === 'slack' && receipt.ts,
    });
    const blocks = update?.args.blocks as Block[];
    expect(blocks.some((block) => block.type === 'actions')).toBe(false);
    expect(blocks[0]?.text?.text).toBe('Denied');
    expect(textOf(blocks)).toContain('Denied by slack:U123');
    expect(textOf(blocks)).toContain('Reason: not during the &lt;freeze&gt;');
    expect(textOf(blocks)).toContain('<!date^1767323400^');
    expect(update?.args.text).toContain('deleteFile: denied by slack:U123.');
  });

  it('says an expired approval expired', async () => {
    const notice = noticeFor({ path: 'x' });
    const receipt = await notifier.requested(notice, { type: 'slack', channel: 'C1' }, 'request');
    await notifier.resolved(
      notice,
      {
        ...notice.approval,
        decision: 'expired',
        reason: 'no decision within 1h',
        decidedAt: '2026-01-02T04:04:05.000Z',
        via: 'timeout',
      },
      receipt,
    );
    const update = slack.callsOf('chat.update').slice(-1)[0];
    expect(update?.args.text).toContain('expired');
    expect((update?.args.blocks as Block[]).some((block) => block.type === 'actions')).toBe(false);
  });

  it('reports a passing Slack failure as retryable and a refusal as not', async () => {
    const target = { type: 'slack' as const, channel: 'C1' };
    slack.failNext(1, 'ratelimited');
    await expect(notifier.requested(noticeFor({}), target, 'request')).rejects.toMatchObject({
      type: 'SlackUnavailable',
      nonRetryable: false,
    });
    slack.failNext(1, 'http-500');
    await expect(notifier.requested(noticeFor({}), target, 'request')).rejects.toMatchObject({
      type: 'SlackUnavailable',
      nonRetryable: false,
    });
    await expect(notifier.requested(noticeFor({}), { type: 'slack', channel: '' }, 'request')).rejects.toMatchObject({
      type: 'SlackRequestRejected',
      nonRetryable: true,
      message: expect.stringContaining('channel_not_found'),
    });
  });

  it('links the request to the gateway’s inbox when the gateway URL is configured, and only then', async () => {
    const linked = slackNotifierFromEnvironment({
      SLACK_BOT_TOKEN: 'xoxb-from-env',
      SLACK_API_URL: slack.url,
      TOLLGATE_GATEWAY_URL: 'https://tollgate.example.com/',
    });
    await linked?.requested(noticeFor({ path: 'a' }), { type: 'slack', channel: 'C7' }, 'request');
    const withLink = slack.callsOf('chat.postMessage').slice(-1)[0]?.args.blocks as Block[];
    expect(withLink.slice(-1)[0]).toEqual({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `<https://tollgate.example.com/inbox#${encodeURIComponent(approvalId)}|Open in inbox> to see it in full or edit the arguments`,
        },
      ],
    });
    // The buttons stay as they were: the link is no button, so it posts no click to the gateway.
    expect(withLink.find((block) => block.type === 'actions')?.elements).toHaveLength(2);

    await notifier.requested(noticeFor({ path: 'a' }), { type: 'slack', channel: 'C7' }, 'request');
    expect(textOf(slack.callsOf('chat.postMessage').slice(-1)[0]?.args.blocks as Block[])).not.toContain(
      'Open in inbox',
    );
  });

  it('is configured from SLACK_BOT_TOKEN and SLACK_API_URL, and absent without a token', async () => {
    expect(slackNotifierFromEnvironment({})).toBeUndefined();
    const configured = slackNotifierFromEnvironment({ SLACK_BOT_TOKEN: 'xoxb-from-env', SLACK_API_URL: slack.url });
    await configured?.requested(noticeFor({}), { type: 'slack', channel: 'C9' }, 'request');
    expect(slack.callsOf('chat.postMessage').slice(-1)[0]).toMatchObject({
      token: 'xoxb-from-env',
      args: { channel: 'C9' },
    });
  });
});
