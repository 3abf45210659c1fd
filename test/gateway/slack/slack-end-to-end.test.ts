import { WebClient } from '@slack/web-api';
import { slackExtension } from '../../../src/gateway/slack';
import { SlackNotifier, slackActionIds } from '../../../src/notifications/slack';
import { startFakeSlackApi, type FakeSlackApi } from '../../support/fake-slack-api';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { startGateway, type RunningGateway } from '../gateway-fixture';
import { click, testSigningSecret } from './slack-clicks';

type Block = { type: string; text?: { text: string }; elements?: Array<{ action_id?: string; value?: string }> };

const { tools, runs } = createTestTools();
let slack: FakeSlackApi;
let environment: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  slack = await startFakeSlackApi();
  const notifier = new SlackNotifier({
    client: new WebClient('xoxb-worker', { slackApiUrl: slack.url, retryConfig: { retries: 0 } }),
  });
  environment = await createTestEnvironment({
    tools,
    notifiers: [notifier],
    // Who is told is the operator's choice.
    policy: {
      tools: {
        deleteFile: { notify: [{ type: 'slack', channel: 'C1' }] },
        launch: { notify: [{ type: 'slack', channel: 'C1' }] },
      },
    },
  });
  gateway = await startGateway(environment.tollgate, {
    extensions: [slackExtension({ signingSecrets: [testSigningSecret] })],
  });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
  await slack?.close();
});

describe('Slack approvals end to end', () => {
  it('posts the request, takes a signed click on Approve, runs the tool, and updates the message without buttons', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'report.pdf' } }] },
      { text: 'deleted it' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete the report` }],
      requester: 'ana',
    });

    const [posted] = await waitFor(
      async () => slack.callsOf('chat.postMessage').filter((call) => JSON.stringify(call.args).includes('report.pdf')),
      (calls) => calls.length === 1,
    );
    expect(posted).toMatchObject({ token: 'xoxb-worker', args: { channel: 'C1' }, response: { ok: true } });
    const buttons = (posted!.args.blocks as Block[]).find((block) => block.type === 'actions')?.elements ?? [];
    const approve = buttons.find((button) => button.action_id === slackActionIds.approve);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);

    // The button binds the click to the arguments the message showed.
    const [pending] = await waitForPending(handle, 1);
    expect(approve!.value).toBe(`${pending!.approvalId}#${pending!.inputDigest}`);
    // A click whose value names other arguments decides nothing.
    expect((await click(gateway, `${pending!.approvalId}#AAAAAAAAAAAAAAAAAAAAAA`, { user: 'U123' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await waitForPending(handle, 1)).toHaveLength(1);

    // Slack sends the button's value back; the click names the approval, the signature vouches for the user.
    expect((await click(gateway, approve!.value!, { user: 'U123' })).status).toBe(200);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', text: 'deleted it' });
    expect(result.audit).toEqual([expect.objectContaining({ decision: 'approved', approver: 'slack:U123' })]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);

    const [update] = await waitFor(
      async () => slack.callsOf('chat.update').filter((call) => call.args.ts === posted!.response?.ts),
      (calls) => calls.length === 1,
    );
    expect(update!.args.channel).toBe('C1');
    expect(update!.args.blocks as Block[]).not.toContainEqual(expect.objectContaining({ type: 'actions' }));
    expect(update!.args.text).toContain('approved by slack:U123');
    expect(JSON.stringify(update!.args.blocks)).toContain('Approved by slack:U123');
  });

  it('shows on the message that an approval expired, and removes its buttons', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'launch', arguments: { job: 'nightly-build' } }] },
      { text: 'could not launch' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} launch it` }],
    });
    const result = await handle.result();
    expect(result.audit).toEqual([expect.objectContaining({ decision: 'expired' })]);
    const [posted] = slack
      .callsOf('chat.postMessage')
      .filter((call) => JSON.stringify(call.args).includes('nightly-build'));
    const [update] = await waitFor(
      async () => slack.callsOf('chat.update').filter((call) => call.args.ts === posted?.response?.ts),
      (calls) => calls.length === 1,
    );
    expect(update!.args.text).toContain('expired');
    expect(update!.args.blocks as Block[]).not.toContainEqual(expect.objectContaining({ type: 'actions' }));
  });
});
