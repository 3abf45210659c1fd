import { WebClient } from '@slack/web-api';
import { slackExtension } from '../../../src/gateway/slack';
import { SlackNotifier, slackActionIds } from '../../../src/notifications/slack';
import { pendingToolApprovalsQuery } from '../../../src/workflows/definitions';
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

type Block = {
  type: string;
  elements?: Array<{ action_id?: string; value?: string; text?: { text: string } }>;
};

const { tools, runs } = createTestTools();
let slack: FakeSlackApi;
let environment: TestEnvironment;
// One gateway with the operator's default terms, one without.
let gateway: RunningGateway;
let plainGateway: RunningGateway;

beforeAll(async () => {
  slack = await startFakeSlackApi();
  const client = (token: string) => new WebClient(token, { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
  environment = await createTestEnvironment({
    tools,
    notifiers: [new SlackNotifier({ client: client('xoxb-worker'), allow: { for: '1h' } })],
    policy: { tools: { deleteFile: { notify: [{ type: 'slack', channel: 'C1' }] } } },
  });
  const notifier = new SlackNotifier({ client: client('xoxb-gateway') });
  gateway = await startGateway(environment.tollgate, {
    extensions: [slackExtension({ signingSecrets: [testSigningSecret], notifier, allow: { for: '1h' } })],
  });
  plainGateway = await startGateway(environment.tollgate, {
    extensions: [slackExtension({ signingSecrets: [testSigningSecret], notifier })],
  });
});
afterAll(async () => {
  await gateway?.close();
  await plainGateway?.close();
  await environment?.close();
  await slack?.close();
});

/** A turn whose model deletes each path in turn, one step each; the message of its first ask. */
async function deletes(paths: string[]) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    ...paths.map((path, index) => ({
      toolCalls: [{ id: `${marker}-${index}`, name: 'deleteFile', arguments: { path } }],
    })),
    { text: 'done' },
  );
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} tidy up` }],
    requester: 'carol',
  });
  const [posted] = await waitFor(
    async () => slack.callsOf('chat.postMessage').filter((call) => JSON.stringify(call.args).includes(paths[0]!)),
    (calls) => calls.length === 1,
  );
  const buttons = (posted!.args.blocks as Block[]).find((block) => block.type === 'actions')?.elements ?? [];
  return { handle, marker, buttons, runs: () => runs.filter((run) => run.toolCallId.startsWith(`${marker}-`)) };
}

describe('"Approve and allow" in Slack', () => {
  it('shows the operator default terms on a button, approves and grants them, and the next call runs without asking', async () => {
    const turn = await deletes(['slack-a.txt', 'slack-b.txt']);
    const allowButton = turn.buttons.find((button) => button.action_id === slackActionIds.approveAndAllow);
    expect(allowButton?.text?.text).toBe('Approve and allow (1h)');
    expect(turn.buttons.map((button) => button.action_id)).toEqual([
      slackActionIds.approve,
      slackActionIds.approveAndAllow,
      slackActionIds.deny,
    ]);

    expect((await click(gateway, allowButton!.value!, { actionId: slackActionIds.approveAndAllow })).status).toBe(200);
    const result = await turn.handle.result();
    expect(result.audit).toEqual([
      expect.objectContaining({ decision: 'approved', approver: 'slack:U123', via: 'update' }),
      expect.objectContaining({
        decision: 'approved',
        via: 'grant',
        approver: 'slack:U123',
        grant: { grantId: expect.stringMatching(/^grant-/), grantedBy: 'slack:U123' },
      }),
    ]);
    expect(turn.runs()).toHaveLength(2);
    const grantId = result.audit[1]!.grant!.grantId;

    // The gateway audit keeps the grant, on the Slack channel; the clicker alone hears what it covers.
    expect(gateway.audit.list()).toContainEqual(
      expect.objectContaining({
        channel: 'slack',
        approver: 'slack:U123',
        grant: expect.objectContaining({ action: 'grant', grantId }),
      }),
    );
    const [note] = await waitFor(
      async () => slack.callsOf('chat.postEphemeral').filter((call) => String(call.args.text).includes(grantId)),
      (calls) => calls.length === 1,
    );
    expect(note!.args.text).toBe(
      `You approved deleteFile and allowed calls like it without asking (1h; grant ${grantId}). Revoke it in the inbox's Standing grants or with \`tollgate grants revoke ${grantId}\`.`,
    );
    await gateway.call('DELETE', `/v1/grants/${grantId}`);
  });

  it('refuses the button on a gateway without default terms, tells the clicker, and decides nothing', async () => {
    const turn = await deletes(['slack-c.txt']);
    const allowButton = turn.buttons.find((button) => button.action_id === slackActionIds.approveAndAllow)!;
    expect(
      (await click(plainGateway, allowButton.value!, { actionId: slackActionIds.approveAndAllow, channel: 'C-plain' }))
        .status,
    ).toBe(200);
    const [told] = await waitFor(
      async () => slack.callsOf('chat.postEphemeral').filter((call) => call.args.channel === 'C-plain'),
      (calls) => calls.length === 1,
    );
    expect(told!.args.text).toMatch(/^Your click was not applied: Approve and allow is not set up on this gateway/);
    const [pending] = await waitForPending(turn.handle, 1);
    expect(plainGateway.audit.list({ approvalId: pending!.approvalId })).toEqual([
      expect.objectContaining({ outcome: 'refused', refusal: expect.objectContaining({ code: 'forbidden' }) }),
    ]);
    expect(await turn.handle.query(pendingToolApprovalsQuery)).toHaveLength(1);
    expect(turn.runs()).toHaveLength(0);
  });
});
