import { slackExtension } from '../../../src/gateway/slack';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  type TestEnvironment,
  waitForPending,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { startGateway, type RunningGateway } from '../gateway-fixture';
import { click, testSigningSecret } from './slack-clicks';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools, startWorker: true });
  gateway = await startGateway(environment.tollgate, {
    // Enough tries, a second apart at most, to outlast the worker's absence below.
    extensions: [
      slackExtension({
        signingSecrets: [testSigningSecret],
        deliveryRetry: { attempts: 60, initialDelayMs: 200, maxDelayMs: 1000 },
      }),
    ],
  });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
});

describe('Slack interactivity without a worker', () => {
  it('acknowledges at once while no worker runs, without waiting for the decision, and delivers the decision once one starts', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'old.log' } }] },
      { text: 'finished' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} tidy` }] });
    const [approval] = await waitForPending(handle, 1);
    await environment.stopWorker();

    const response = await click(gateway, approval!.approvalId, { user: 'U123' });
    expect(response.status).toBe(200);
    // Acknowledged while no worker runs, so without waiting for the decision to be taken (Slack gives up on an answer
    // after 3 s); nothing can be recorded until a worker runs.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(gateway.audit.list({ approvalId: approval!.approvalId }).filter((a) => a.outcome === 'recorded')).toEqual(
      [],
    );

    await environment.startWorker();
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.audit).toEqual([
      expect.objectContaining({ approvalId: approval!.approvalId, decision: 'approved', approver: 'slack:U123' }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    const attempts = await waitFor(
      async () => gateway.audit.list({ approvalId: approval!.approvalId }),
      (list) => list.some((attempt) => attempt.outcome === 'recorded'),
    );
    expect(attempts.filter((attempt) => attempt.outcome === 'recorded')).toEqual([
      expect.objectContaining({ approver: 'slack:U123', channel: 'slack', approved: true }),
    ]);
  });
});
