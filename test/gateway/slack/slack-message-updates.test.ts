import { WebClient } from '@slack/web-api';
import { SlackNotifier } from '../../../src/notifications/slack';
import { startFakeSlackApi, type FakeSlackApi, type FakeSlackCall } from '../../support/fake-slack-api';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { startGateway, type RunningGateway } from '../gateway-fixture';

type Block = { type: string; text?: { text: string } };

const { tools } = createTestTools();
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
    // deploy waits 8 s and warns 4 s before it expires; deleteFile keeps the default (no warning under 10 minutes).
    policy: {
      tools: {
        deploy: { notify: [{ type: 'slack', channel: 'C-ops' }], approvalTimeout: '8s', warnBeforeExpiry: '4s' },
        deleteFile: { notify: [{ type: 'slack', channel: 'C-ops' }] },
      },
    },
  });
  gateway = await startGateway(environment.tollgate);
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
  await slack?.close();
});

/** The messages posted about a call whose arguments mention `mark`, in order. */
function postedAbout(mark: string): FakeSlackCall[] {
  return slack.callsOf('chat.postMessage').filter((call) => JSON.stringify(call.args).includes(mark));
}

function headingOf(call: FakeSlackCall | undefined): string | undefined {
  return (call?.args.blocks as Block[] | undefined)?.[0]?.text?.text;
}

/** The updates of the message `posted`, once there are `count` of them. */
async function updatesOf(posted: FakeSlackCall, count = 1): Promise<FakeSlackCall[]> {
  return waitFor(
    async () => slack.callsOf('chat.update').filter((call) => call.args.ts === posted.response?.ts),
    (calls) => calls.length >= count,
  );
}

function hasButtons(call: FakeSlackCall | undefined): boolean {
  return (call?.args.blocks as Block[]).some((block) => block.type === 'actions');
}

async function startDeploy(service: string) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deploy', arguments: { service } }] },
    { text: 'done' },
  );
  const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} ship it` }] });
  const [approval] = await waitForPending(handle, 1);
  return { handle, approval: approval! };
}

describe('Slack messages of an approval', () => {
  it('warn the channel before the approval expires, then show both messages expired without buttons', async () => {
    const service = `api-${uniqueMarker()}`;
    const { handle } = await startDeploy(service);

    const [request, warning] = await waitFor(
      async () => postedAbout(service),
      (calls) => calls.length >= 2,
    );
    expect(headingOf(request)).toBe('Approval needed');
    // Due 4 s before the approval expires, while a decision still counts: it has buttons.
    expect(headingOf(warning)).toMatch(/^Expires in \d+ s: approval still needed$/);
    expect(warning!.args.channel).toBe('C-ops');
    expect(hasButtons(warning)).toBe(true);

    const result = await handle.result();
    expect(result.audit).toEqual([expect.objectContaining({ decision: 'expired' })]);
    for (const posted of [request!, warning!]) {
      const [update] = await updatesOf(posted);
      expect(headingOf(update)).toBe('Expired');
      expect(hasButtons(update)).toBe(false);
    }
    expect(postedAbout(service)).toHaveLength(2);
  }, 30_000);

  it('send no warning for an approval decided through the gateway, and show who approved it', async () => {
    const service = `web-${uniqueMarker()}`;
    const { handle, approval } = await startDeploy(service);
    const decided = await gateway.call('POST', `/v1/approvals/${encodeURIComponent(approval.approvalId)}/decision`, {
      as: 'bob',
      body: { approved: true },
    });
    expect(decided.status).toBe(200);
    await handle.result();
    const [request] = postedAbout(service);
    const [update] = await updatesOf(request!);
    expect(headingOf(update)).toBe('Approved');
    expect(JSON.stringify(update!.args.blocks)).toContain('Approved by bob');
    expect(hasButtons(update)).toBe(false);

    // Past the moment the warning was due (4 s after the request), still the request alone.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Date.parse(approval.requestedAt) + 5_000 - Date.now())),
    );
    expect(postedAbout(service)).toHaveLength(1);
  }, 30_000);

  it('show a call superseded by a newer message as superseded, without buttons', async () => {
    const marker = uniqueMarker();
    const conversationId = `slack-updates-${marker}`;
    const path = `draft-${marker}.txt`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path } }] },
      { text: 'left it' },
      { text: 'ok, something else' },
    );
    await environment.tollgate.sendMessage(
      conversationId,
      { content: `${marker} delete the draft` },
      { onMessageWhilePending: 'supersede' },
    );
    const [request] = await waitFor(
      async () => postedAbout(path),
      (calls) => calls.length === 1,
    );
    await environment.tollgate.sendMessage(conversationId, { content: `${marker} never mind, do something else` });

    const [update] = await updatesOf(request!);
    expect(headingOf(update)).toBe('Superseded');
    expect(update!.args.text).toContain('superseded');
    expect(update!.args.text).not.toContain('denied by');
    expect(hasButtons(update)).toBe(false);
  }, 30_000);
});
