import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TollgateClient } from '../../src/client';
import type { PendingToolApproval } from '../../src/protocol';
import { formatTime } from '../../src/workflows/visibility/describe-turn';
import { freeDevPorts, startDev, stopDev, type DevPorts, type DevProcess } from '../support/dev-stack';
import { findBrowser, headlessBrowserArguments } from '../support/find-browser';
import { waitFor, waitForPending } from '../support/test-environment';

// A person's view: `npm run dev`, turns started through its gateway, then its own Temporal Web UI in Chromium at the
// size of a laptop screen. Screenshots of what the person sees are kept under .tollgate/browser-screens/ for a look.
const lookFolder = path.resolve(__dirname, '../../.tollgate/browser-screens');
const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-temporal-ui-'));
const stateFolder = path.join(folder, 'state');
let ports: DevPorts;
let dev: DevProcess | undefined;
let tollgate: TollgateClient | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  ports = await freeDevPorts();
  dev = await startDev({ stateFolder, workspace: path.join(folder, 'workspace'), ports });
  tollgate = await TollgateClient.connect({
    namespace: 'default',
    taskQueue: 'tollgate',
    connectionOptions: { address: `127.0.0.1:${ports.temporal}` },
  });
  browser = await chromium.launch({ executablePath: findBrowser(), args: headlessBrowserArguments });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await tollgate?.close();
  if (dev) await stopDev(dev);
  rmSync(folder, { recursive: true, force: true });
});

/** Starts a turn as a service or the chat page does: through the gateway, with the dev token's identity. */
async function startTurnThroughGateway(prompt: string): Promise<string> {
  const token = readFileSync(path.join(stateFolder, 'gateway-token'), 'utf8').trim();
  const response = await fetch(`http://127.0.0.1:${ports.gateway}/v1/turns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: prompt }], approvalTimeout: '1d' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { workflowId: string }).workflowId;
}

async function decideThroughGateway(approvalId: string, approved: boolean): Promise<void> {
  const token = readFileSync(path.join(stateFolder, 'gateway-token'), 'utf8').trim();
  const response = await fetch(`http://127.0.0.1:${ports.gateway}/v1/approvals/${approvalId}/decision`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ approved }),
  });
  expect(response.status).toBe(200);
}

async function look(page: Page, name: string): Promise<void> {
  mkdirSync(lookFolder, { recursive: true });
  await page.screenshot({ path: path.join(lookFolder, `${name}.png`) });
}

/** The turn's page, on its User Metadata tab: the current details, which the UI renders as markdown in a frame. */
async function openDetails(page: Page, workflowId: string): Promise<string> {
  await page.goto(`http://127.0.0.1:${ports.ui}/namespaces/default/workflows/${workflowId}`);
  await page.getByRole('tab', { name: 'User Metadata' }).click();
  return waitFor(
    async () => {
      for (const frame of page.frames()) {
        if (!frame.url().includes('/render?')) continue;
        const text = (
          await frame
            .locator('body')
            .innerText()
            .catch(() => '')
        ).trim();
        if (/^(Now|Finished):/.test(text)) return text;
      }
      return '';
    },
    (text) => text !== '',
    30_000,
  );
}

describe("the dev server's Temporal UI", () => {
  it('lists a waiting turn by its tool, and its page names tool, arguments, requester and since when', async () => {
    const waitingId = await startTurnThroughGateway('run ls -la');
    const otherId = await startTurnThroughGateway('write hello to notes.txt');
    const [approval] = (await waitForPending(tollgate!.turn(waitingId), 1)) as PendingToolApproval[];
    await waitForPending(tollgate!.turn(otherId), 1);

    const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      // "What waits for bash", as docs/inspecting-turns.md gives it; the list is eventually consistent.
      const query = encodeURIComponent(`TollgateWaitingTools = 'bash'`);
      await waitFor(
        async () => {
          await page.goto(`http://127.0.0.1:${ports.ui}/namespaces/default/workflows?query=${query}`);
          return page
            .getByRole('link', { name: waitingId })
            .first()
            .waitFor({ timeout: 10_000 })
            .then(
              () => true,
              () => false,
            );
        },
        (shown) => shown,
        60_000,
      );
      expect(await page.getByRole('link', { name: otherId }).count()).toBe(0);
      await look(page, 'temporal-ui-list');

      await page.getByRole('link', { name: waitingId }).first().click();
      await page.getByText('approval: bash ls -la').first().waitFor({ timeout: 30_000 });
      await look(page, 'temporal-ui-waiting-timeline');

      const shown = await openDetails(page, waitingId);
      expect(shown).toContain('Now: waiting for approval of 1 call (bash). Asked by developer.');
      expect(shown).toContain('command: ls -la');
      expect(shown).toContain(`waiting since ${formatTime(approval!.requestedAt)}`);
      expect(shown).toContain('asked by developer · may decide: anyone');
      // npm run dev counts signed decisions only: the page says so, and names the ways that work.
      expect(shown).toContain('this worker counts signed decisions only: npx tollgate approve <approvalId>');
      await look(page, 'temporal-ui-waiting-details');
    } finally {
      await page.close();
    }
  }, 180_000);

  it("shows a decided turn's decision on its page, without opening the result", async () => {
    const turnId = await startTurnThroughGateway('write draft to plan.md');
    const [approval] = await waitForPending(tollgate!.turn(turnId), 1);
    await decideThroughGateway(approval!.approvalId, true);
    expect((await tollgate!.turn(turnId).result()).status).toBe('completed');

    const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await page.goto(`http://127.0.0.1:${ports.ui}/namespaces/default/workflows/${turnId}`);
      await page.getByText('tool: writeFile plan.md, then model step 2').first().waitFor({ timeout: 30_000 });
      await look(page, 'temporal-ui-decided-timeline');
      const shown = await openDetails(page, turnId);
      expect(shown).toContain('Finished: completed after 2 model steps. Asked by developer.');
      expect(shown).toMatch(/writeFile plan\.md: approved by developer via update at \d{4}-\d\d-\d\d/);
      await look(page, 'temporal-ui-decided-details');
    } finally {
      await page.close();
    }
  }, 120_000);
});
