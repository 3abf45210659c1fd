import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { emailExtension } from '../../src/gateway/email';
import { startGateway, type RunningGateway } from '../gateway/gateway-fixture';
import { decisionLink, testLinkSecret } from '../gateway/email/email-link-visits';
import { findBrowser, headlessBrowserArguments } from '../support/find-browser';
import { createTestEnvironment, uniqueMarker, waitForPending, type TestEnvironment } from '../support/test-environment';
import { createTestTools } from '../support/test-tools';

// An approver opens the link from their mail in a real browser and presses the button: the decision must reach the
// turn. The form checks tested with fetch (test/gateway/email) cannot show what a browser sends as `Origin`.
const lookFolder = path.resolve(__dirname, '../../.tollgate/browser-screens');
const failureFolder = path.resolve(__dirname, '../../.tollgate/browser-failures');
const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let gateway: RunningGateway;
let browser: Browser;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
  gateway = await startGateway(environment.tollgate, {
    extensions: [emailExtension({ secrets: [testLinkSecret], rateLimit: { max: 10_000 } })],
  });
  browser = await chromium.launch({ executablePath: findBrowser(), args: headlessBrowserArguments });
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await environment?.close();
});

it('approves through the mailed link in a browser: the page, the button, the decision in the turn', async () => {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'old.log' } }] },
    { text: 'deleted' },
  );
  const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} tidy` }] });
  const [approval] = await waitForPending(handle, 1);
  const link = decisionLink(
    gateway.url,
    { workflowId: handle.workflowId, approvalId: approval!.approvalId },
    'approve',
  );
  const page = await browser.newPage();
  try {
    await page.goto(link);
    await page.getByRole('button', { name: /approve/i }).click();
    await page.waitForLoadState();
    await page
      .getByText(/approved/i)
      .first()
      .waitFor({ timeout: 20_000 });
    mkdirSync(lookFolder, { recursive: true });
    await page.screenshot({ path: path.join(lookFolder, 'email-decided.png'), fullPage: true });
    const result = await handle.result();
    expect(result.audit).toEqual([
      expect.objectContaining({ decision: 'approved', approver: 'email:ana@example.com' }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
  } catch (error) {
    mkdirSync(failureFolder, { recursive: true });
    await page
      .screenshot({ path: path.join(failureFolder, 'email-decision.png'), fullPage: true })
      .catch(() => undefined);
    throw error;
  } finally {
    await page.close();
  }
});
