import { agentTurnEventsQuery } from '../../src/workflows/definitions';
import { createTestEnvironment, uniqueMarker, waitForPending, type TestEnvironment } from '../support/test-environment';
import { RecordingNotifier } from '../support/recording-notifier';
import { createTestTools } from '../support/test-tools';

const notifier = new RecordingNotifier();
const { tools } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  // The operator announces deploys in C-ops and sets no reminder for them.
  environment = await createTestEnvironment({
    tools,
    notifiers: [notifier],
    policy: { tools: { deploy: { notify: [{ type: 'slack', channel: 'C-ops' }] } } },
  });
});
afterAll(async () => {
  await environment?.close();
});

describe("a turn's own remindAfter", () => {
  it('sends no reminder the operator did not set, and notes why', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deploy', arguments: { service: 'api' } }] },
      { text: 'done' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} ship it` }],
      approvalRules: { remindAfter: '1s' },
    });
    const [approval] = await waitForPending(handle, 1);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(notifier.sent.filter((entry) => entry.approvalId === approval!.approvalId)).toEqual([
      { kind: 'request', approvalId: approval!.approvalId, channel: 'C-ops' },
    ]);
    const events = await handle.query(agentTurnEventsQuery);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'policy-note',
          detail: expect.stringContaining("The turn's remindAfter for deploy was not used"),
        }),
      ]),
    );
    await environment.tollgate.decide(approval!.approvalId, { approved: false, reason: 'not today' });
    await handle.result();
  }, 30_000);
});
