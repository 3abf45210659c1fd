import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findBrowser, headlessBrowserArguments } from '../support/find-browser';
import { startSmtpTestServer, type SmtpTestServer } from '../support/smtp-test-server';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../support/test-environment';
import { createTestTools } from '../support/test-tools';
import { startInboxGateway, type InboxGateway } from '../gateway/inbox/inbox-fixture';
import { testTokens } from '../gateway/gateway-fixture';

/** Screenshots of what a person sees, kept for a look (they are not compared). */
const lookFolder = path.resolve(__dirname, '../../.tollgate/browser-screens');
const failureFolder = path.resolve(__dirname, '../../.tollgate/browser-failures');

const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let smtp: SmtpTestServer;
let gateway: InboxGateway;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpTestServer();
  environment = await createTestEnvironment({ tools });
  gateway = await startInboxGateway(environment.tollgate, { smtpUrl: smtp.url, trustedProxies: '127.0.0.1,::1' });
  browser = await chromium.launch({
    executablePath: findBrowser(),
    args: headlessBrowserArguments,
  });
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await environment?.close();
  await smtp?.close();
});

async function waitingTurn(pathName: string, requester = 'carol') {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: pathName, reason: 'old drafts' } }] },
    { text: 'done' },
  );
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} delete ${pathName}` }],
    requester,
  });
  const [approval] = await waitForPending(handle, 1);
  return {
    handle,
    approvalId: approval!.approvalId,
    runs: () => runs.filter((run) => run.toolCallId === `${marker}-1`),
  };
}

/** A turn whose one call is expected to run without asking: started, not waited on. */
async function runningTurn(pathName: string, requester: string) {
  const marker = uniqueMarker();
  environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: pathName } }] },
    { text: 'done' },
  );
  const handle = await environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} delete ${pathName}` }],
    requester,
  });
  return { handle, runs: () => runs.filter((run) => run.toolCallId === `${marker}-1`) };
}

/** The list item of one approval. */
function itemOf(page: Page, approvalId: string) {
  return page.locator(`li.approval[data-approval-id="${approvalId}"]`);
}

describe('the approver inbox in a browser', () => {
  it('signs in by mail, shows an approval arriving live, and approves it by keyboard with labelled controls', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${gateway.url}/inbox`);
      await page.getByLabel('Your email address').fill('ana@example.com');
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
      const mail = await smtp.waitForMail((mail) => mail.to.includes('ana@example.com'));
      const link = mail.links.find((candidate) => candidate.includes('/inbox/sign-in/'))!;
      await page.goto(link);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Approvals waiting for you' }).waitFor();
      expect(await page.locator('section#stats').count()).toBe(1);

      // An approval requested after the page loaded appears without a reload, and is announced.
      const turn = await waitingTurn('drafts/old.txt');
      const item = itemOf(page, turn.approvalId);
      await item.waitFor({ timeout: 20_000 });
      await page
        .locator('#announcer')
        .filter({ hasText: 'New approval: deleteFile requested by carol.' })
        .waitFor({ timeout: 20_000 });
      expect(await item.locator('.arguments').innerText()).toContain('drafts/old.txt');
      expect(await item.locator('.facts').innerText()).toContain('carol');

      // Every control names the tool.
      await item.getByRole('button', { name: 'Approve deleteFile' }).waitFor();
      await item.getByRole('button', { name: 'Deny deleteFile' }).waitFor();
      await item.getByRole('checkbox', { name: /Select deleteFile \(requested by carol\)/ }).waitFor();
      await item.getByRole('textbox', { name: /Reason for deleteFile/ }).waitFor();
      await item.getByText('Raw arguments of deleteFile (JSON)').click();
      expect(await item.locator('details pre').innerText()).toContain('"path": "drafts/old.txt"');
      mkdirSync(lookFolder, { recursive: true });
      await page.screenshot({ path: path.join(lookFolder, 'inbox-waiting.png'), fullPage: true });

      // Keyboard only: type a reason, Tab to Approve, Enter.
      await item.getByRole('textbox', { name: /Reason for deleteFile/ }).focus();
      await page.keyboard.type('drafts are safe to delete');
      await page.keyboard.press('Tab');
      expect(await page.locator(':focus').textContent()).toBe('Approve deleteFile');
      await page.keyboard.press('Enter');
      await item.locator('.outcome').filter({ hasText: 'deleteFile approved by you' }).waitFor({ timeout: 20_000 });
      expect(await item.getByRole('button').count()).toBe(0);
      expect((await turn.handle.result()).audit).toEqual([
        expect.objectContaining({ decision: 'approved', approver: 'ana', reason: 'drafts are safe to delete' }),
      ]);
      expect(turn.runs()).toHaveLength(1);
      await page.screenshot({ path: path.join(lookFolder, 'inbox-approved.png'), fullPage: true });
    } catch (error) {
      mkdirSync(failureFolder, { recursive: true });
      await page.screenshot({ path: path.join(failureFolder, 'inbox.png'), fullPage: true }).catch(() => undefined);
      throw error;
    } finally {
      await page.close();
    }
  });

  it('approves several at once, and closes an approval decided elsewhere', async () => {
    const page = await browser.newPage();
    const first = await waitingTurn('a.txt');
    const second = await waitingTurn('b.txt');
    const elsewhere = await waitingTurn('c.txt');
    try {
      // Through the company's proxy this time: the test's own address is trusted.
      await page.setExtraHTTPHeaders({ 'x-forwarded-email': 'bob@example.com' });
      await page.goto(`${gateway.url}/inbox#${encodeURIComponent(elsewhere.approvalId)}`);
      await page.getByRole('heading', { name: 'Approvals waiting for you' }).waitFor();
      for (const turn of [first, second, elsewhere]) await itemOf(page, turn.approvalId).waitFor({ timeout: 20_000 });
      // The "Open in inbox" target is highlighted.
      expect(await itemOf(page, elsewhere.approvalId).getAttribute('class')).toContain('highlight');

      await itemOf(page, first.approvalId).getByRole('checkbox').focus();
      await page.keyboard.press('Space');
      await itemOf(page, second.approvalId).getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Approve selected (2)' }).click();
      for (const turn of [first, second]) {
        await itemOf(page, turn.approvalId)
          .locator('.outcome')
          .filter({ hasText: 'approved by you' })
          .waitFor({ timeout: 20_000 });
      }

      // Denied by someone else through another channel: its buttons go.
      await environment.tollgate.decide(elsewhere.approvalId, { approved: false, approver: 'eve', reason: 'no' });
      await itemOf(page, elsewhere.approvalId)
        .locator('.outcome')
        .filter({ hasText: 'No longer waiting' })
        .waitFor({ timeout: 20_000 });
      expect(await itemOf(page, elsewhere.approvalId).getByRole('button').count()).toBe(0);
      await page.screenshot({ path: path.join(lookFolder, 'inbox-several.png'), fullPage: true });

      // The lead may read the audit too: their inbox draws the last 7 days, these decisions included.
      await page.setExtraHTTPHeaders({ 'x-forwarded-email': 'lead@example.com' });
      await page.goto(`${gateway.url}/inbox`);
      const chart = page.locator('#stats svg[role="img"]');
      await chart.waitFor({ timeout: 20_000 });
      expect(await page.getByRole('heading', { name: 'Last 7 days' }).count()).toBe(1);
      expect(await chart.locator('title').first().textContent()).toBe('Approvals per tool, last 7 days');
      expect(await chart.locator('title').allTextContents()).toContain('deleteFile: 3 approved');
      expect(await chart.textContent()).toContain('deleteFile');
      await page.screenshot({ path: path.join(lookFolder, 'inbox-stats.png'), fullPage: true });
      for (const turn of [first, second]) {
        expect((await turn.handle.result()).audit).toEqual([
          expect.objectContaining({ decision: 'approved', approver: 'bob' }),
        ]);
      }
    } catch (error) {
      mkdirSync(failureFolder, { recursive: true });
      await page
        .screenshot({ path: path.join(failureFolder, 'inbox-several.png'), fullPage: true })
        .catch(() => undefined);
      throw error;
    } finally {
      await page.close();
    }
  });

  it('suggests a rule from what two people approved every time, for someone who may read the audit', async () => {
    // Five deletions under reports/, approved by ana and bob; deleteFile as a whole was denied once (c.txt, above).
    const marker = uniqueMarker();
    const paths = ['reports/q1.csv', 'reports/q2.csv', 'reports/old/q3.csv', 'reports/q4.csv', 'reports/q5.csv'];
    environment.model.scriptFor(
      marker,
      {
        toolCalls: paths.map((pathName, index) => ({
          id: `${marker}-${index}`,
          name: 'deleteFile',
          arguments: { path: pathName },
        })),
      },
      { text: 'done' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} clean the reports` }],
      requester: 'carol',
    });
    const pending = await waitForPending(handle, paths.length);
    for (const [index, approval] of pending.entries()) {
      await environment.tollgate.decide(approval.approvalId, { approved: true, approver: index % 2 ? 'bob' : 'ana' });
    }
    await handle.result();

    // A gateway of its own: the inbox reads its chart at most once a minute, and this one has not read it yet.
    const fresh = await startInboxGateway(environment.tollgate, { smtpUrl: smtp.url, trustedProxies: '127.0.0.1,::1' });
    const page = await browser.newPage();
    try {
      // Visibility lags a little behind the turn's end: wait until the REST answer holds the rule.
      await waitFor(
        () =>
          fresh.request('GET', '/v1/approvals/suggestions', {
            headers: { authorization: `Bearer ${testTokens.auditor}` },
          }),
        (answer) => answer.status === 200 && answer.body.suggestions.length > 0,
      );
      await page.setExtraHTTPHeaders({ 'x-forwarded-email': 'lead@example.com' });
      await page.goto(`${fresh.url}/inbox`);
      const list = page.getByRole('list', { name: 'Suggested rules' });
      await list.waitFor({ timeout: 20_000 });
      const item = list.locator('li.suggestion[data-suggestion-id="deleteFile:path:path-under"]');
      expect(await item.locator('p').first().innerText()).toMatch(
        /^deleteFile with path under reports\/: approved 5 of 5 times by 2 people \(ana, bob\); median (\d+ s|under a second) to decide\. Calls outside it were denied or expired 1 time\.$/,
      );
      await item.getByText('Grant for deleteFile').click();
      const grant = JSON.parse(await item.locator('details pre').first().innerText());
      expect(grant).toMatchObject({
        tools: ['deleteFile'],
        scope: { type: 'everyone' },
        for: '7d',
        constraints: [{ type: 'path-under', argument: 'path', folder: 'reports' }],
      });
      expect(await item.innerText()).toContain('The policy file holds no rules on arguments');
      mkdirSync(lookFolder, { recursive: true });
      await page.screenshot({ path: path.join(lookFolder, 'inbox-suggestions.png'), fullPage: true });

      // An approver who may not read the audit sees neither chart nor suggestions.
      await page.setExtraHTTPHeaders({ 'x-forwarded-email': 'ana@example.com' });
      await page.goto(`${fresh.url}/inbox`);
      await page.getByRole('heading', { name: 'Approvals waiting for you' }).waitFor();
      expect(await page.locator('#stats').isHidden()).toBe(true);
      expect(await page.getByRole('list', { name: 'Suggested rules' }).count()).toBe(0);
    } catch (error) {
      mkdirSync(failureFolder, { recursive: true });
      await page
        .screenshot({ path: path.join(failureFolder, 'inbox-suggestions.png'), fullPage: true })
        .catch(() => undefined);
      throw error;
    } finally {
      await page.close();
      await fresh.close();
    }
  });

  it('approves and allows with a preset, lists the grant, lets a covered call through, and revokes it in one click', async () => {
    const page = await browser.newPage();
    try {
      await page.setExtraHTTPHeaders({ 'x-forwarded-email': 'ana@example.com' });
      // A refusal is shown in the dialog: ana may not grant for her own requests.
      const own = await waitingTurn('grants/mine.txt', 'ana');
      await page.goto(`${gateway.url}/inbox`);
      const ownItem = itemOf(page, own.approvalId);
      await ownItem.waitFor({ timeout: 20_000 });
      await ownItem.getByRole('button', { name: 'Approve and allow deleteFile…' }).click();
      const ownDialog = ownItem.getByRole('dialog', { name: 'Approve deleteFile and allow calls like it' });
      await ownDialog.waitFor();
      await ownDialog.getByRole('button', { name: 'Approve and allow' }).click();
      const alert = ownDialog.getByRole('alert');
      await alert.filter({ hasText: 'may not grant for their own requests' }).waitFor({ timeout: 20_000 });
      expect(await alert.innerText()).toBe(
        'Not allowed: "ana" may not grant for their own requests; someone else must.',
      );
      mkdirSync(lookFolder, { recursive: true });
      await page.screenshot({ path: path.join(lookFolder, 'inbox-allow-refused.png'), fullPage: true });
      await ownDialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await ownDialog.isVisible()).toBe(false);
      // Refused, the approval still waits.
      expect(await ownItem.getByRole('button', { name: 'Approve deleteFile', exact: true }).isEnabled()).toBe(true);
      await environment.tollgate.decide(own.approvalId, { approved: false, approver: 'bob', reason: 'not now' });

      // dave's request: ana approves it and allows dave's next 10 uses of deleteFile.
      const first = await waitingTurn('grants/a.txt', 'dave');
      const item = itemOf(page, first.approvalId);
      await item.waitFor({ timeout: 20_000 });
      await item.getByRole('button', { name: 'Approve and allow deleteFile…' }).click();
      const dialog = item.getByRole('dialog', { name: 'Approve deleteFile and allow calls like it' });
      await dialog.waitFor();
      expect(await dialog.getByRole('radio', { name: '1 hour' }).isChecked()).toBe(true);
      expect(await dialog.getByRole('radio', { name: 'This conversation’s' }).isChecked()).toBe(true);
      await dialog.getByRole('radio', { name: 'The next 10 uses' }).check();
      await dialog.getByRole('radio', { name: 'Every request by dave' }).check();
      await page.screenshot({ path: path.join(lookFolder, 'inbox-allow-dialog.png'), fullPage: true });
      await dialog.getByRole('button', { name: 'Approve and allow' }).click();
      const outcome = item.locator('.outcome');
      await outcome.filter({ hasText: 'deleteFile approved by you' }).waitFor({ timeout: 20_000 });
      expect(await outcome.innerText()).toMatch(
        /^deleteFile approved by you\. Allowed without asking: deleteFile for requests by dave, for the next 10 uses \(grant grant-[0-9a-f]+; revoke it under Standing grants\)\.$/,
      );
      const grantId = /grant grant-([0-9a-f]+)/.exec(await outcome.innerText())![0].slice('grant '.length);
      expect(await dialog.count()).toBe(0);
      expect(first.runs()).toHaveLength(1);

      // dave's next call is covered: it runs without asking, and its audit names the grant and who gave it.
      const second = await runningTurn('grants/b.txt', 'dave');
      const covered = await second.handle.result();
      expect(covered.audit).toEqual([
        expect.objectContaining({
          decision: 'approved',
          via: 'grant',
          approver: 'ana',
          grant: { grantId, grantedBy: 'ana' },
        }),
      ]);
      expect(second.runs()).toHaveLength(1);

      // The grants page lists it with its use count, expiry and giver; Revoke is one click.
      await page.getByRole('link', { name: 'Standing grants' }).first().click();
      await page.getByRole('heading', { name: 'Standing grants' }).waitFor();
      const row = page.locator(`table.grants tr[data-grant-id="${grantId}"]`);
      expect(await row.locator('th').innerText()).toContain('deleteFile');
      expect(await row.locator('td').nth(0).innerText()).toBe('requests by dave');
      expect(await row.locator('td.uses').innerText()).toBe('1 of 10');
      expect(await row.locator('td.expiry').innerText()).toBe('no time limit');
      expect(await row.locator('td.given').innerText()).toContain('ana (you)');
      await page.screenshot({ path: path.join(lookFolder, 'inbox-grants.png'), fullPage: true });
      await row.getByRole('button', { name: 'Revoke the grant for deleteFile given by ana' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Revoked ${grantId}` })
        .waitFor();
      const ended = page.getByRole('table', { name: 'Ended in the last day' });
      expect(await ended.locator(`tr[data-grant-id="${grantId}"] td`).last().innerText()).toBe('revoked by ana');
      expect(await page.getByRole('table', { name: 'In force' }).count()).toBe(0);
      await page.screenshot({ path: path.join(lookFolder, 'inbox-grants-revoked.png'), fullPage: true });

      // Revoked: dave's next call asks again.
      const third = await waitingTurn('grants/c.txt', 'dave');
      expect(third.runs()).toHaveLength(0);
      await environment.tollgate.decide(third.approvalId, { approved: false, approver: 'bob', reason: 'enough' });
    } catch (error) {
      mkdirSync(failureFolder, { recursive: true });
      await page
        .screenshot({ path: path.join(failureFolder, 'inbox-grants.png'), fullPage: true })
        .catch(() => undefined);
      throw error;
    } finally {
      await page.close();
    }
  });
});
