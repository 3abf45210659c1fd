import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findBrowser, headlessBrowserArguments } from '../support/find-browser';
import { startChatExample, type ChatExample } from '../../src/dev/serve-chat-example';
import { uniqueMarker } from '../support/test-environment';
import { testTokens } from '../gateway/gateway-fixture';
import { startChatStack, type ChatStack } from '../gateway/chat/chat-fixture';
import { workflowIdOfApproval } from '../../src/protocol/approval-id';
import { files, writer } from '../../docs/examples/sub-agents/writer-and-reader';

const screenshotFolder = path.resolve(__dirname, '../../.tollgate/browser-failures');
/** Screenshots of what a person sees at the steps that matter, kept for a look (they are not compared). */
const lookFolder = path.resolve(__dirname, '../../.tollgate/browser-screens');

async function keepScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(lookFolder, { recursive: true });
  await page.screenshot({ path: path.join(lookFolder, `${name}.png`), fullPage: true });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What the page shows of the chat: every text in order, how many assistant messages and tool calls. */
interface ChatOnPage {
  texts: string[];
  assistantMessages: number;
  toolCalls: number;
}

/** What the page shows once it shows `expected` (a resume briefly redraws the message it replaces), or after 20 s. */
async function shownOnceSettled(page: Page, expected: ChatOnPage): Promise<ChatOnPage> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const shown: ChatOnPage = {
      texts: await page.getByTestId('text').allTextContents(),
      assistantMessages: await page.getByTestId('message-assistant').count(),
      toolCalls: await page.getByTestId('tool').count(),
    };
    if (JSON.stringify(shown) === JSON.stringify(expected) || Date.now() > deadline) return shown;
    await page.waitForTimeout(50);
  }
}

describe('the example chat page in a browser', () => {
  let stack: ChatStack;
  let example: ChatExample;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    // Ana (the page's user) may approve deploy with changed arguments; no other tool is editable.
    stack = await startChatStack({
      allowedOrigins: [`http://127.0.0.1:${port}`],
      policy: { tools: { deploy: { editors: ['ana'] } } },
      // The sub-agents page's writer, who hands reading to a reader whose writeFile waits for a person.
      tools: [writer],
    });
    example = await startChatExample({ gatewayUrl: stack.gateway.url, token: testTokens.ana, port });
    browser = await chromium.launch({
      executablePath: findBrowser(),
      args: headlessBrowserArguments,
    });
  });

  afterAll(async () => {
    await browser?.close();
    await example?.close();
    await stack?.close();
  });

  /** Runs a scenario in a fresh page; on failure keeps a screenshot under .tollgate/browser-failures/. */
  async function inPage(name: string, scenario: (page: Page) => Promise<void>): Promise<void> {
    const page = await browser.newPage();
    try {
      await scenario(page);
    } catch (error) {
      mkdirSync(screenshotFolder, { recursive: true });
      await page
        .screenshot({ path: path.join(screenshotFolder, `${name}.png`), fullPage: true })
        .catch(() => undefined);
      throw error;
    } finally {
      await page.close();
    }
  }

  it('sends a message, streams the text, and Approve runs the tool and shows its output', async () => {
    const marker = uniqueMarker();
    const said = 'Let me delete page.txt for you, one careful word after another.';
    stack.model.scriptFor(
      marker,
      { text: said, toolCalls: [{ name: 'deleteFile', arguments: { path: 'page.txt' } }], streamDelayMs: 60 },
      { text: 'Deleted page.txt.' },
    );
    await inPage('approve', async (page) => {
      await page.goto(`${example.url}/?chat=browser-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} delete page.txt`);
      await page.getByTestId('send').click();

      // Streamed: the text grows on screen before it is whole.
      const seen = new Set<string>();
      const text = page.getByTestId('message-assistant').getByTestId('text').first();
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && !seen.has(said)) {
        const current = (await text.textContent({ timeout: 20_000 }).catch(() => '')) ?? '';
        if (current) seen.add(current);
        await page.waitForTimeout(40);
      }
      expect(seen.has(said)).toBe(true);
      expect(seen.size).toBeGreaterThan(1);

      await page.getByTestId('approve').click();
      await page.getByTestId('output').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('output').textContent()).toContain('page.txt');
      await page.getByText('Deleted page.txt.').waitFor({ timeout: 20_000 });
    });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'page.txt')).toHaveLength(1);
  });

  it('shows the earlier exchange and a waiting approval again after a reload, and deciding it after the reload works', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { text: 'Hello before the reload.' },
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'reload.txt' } }] },
      { text: 'Deleted reload.txt after the reload.' },
    );
    await inPage('reload', async (page) => {
      await page.goto(`${example.url}/?chat=reload-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} say hello`);
      await page.getByTestId('send').click();
      await page.getByText('Hello before the reload.').waitFor({ timeout: 20_000 });
      await page.getByText('Ready.', { exact: true }).waitFor({ timeout: 20_000 });
      await page.getByTestId('input').fill('now delete reload.txt');
      await page.getByTestId('send').click();
      await page.getByTestId('approve').waitFor({ timeout: 20_000 });

      await page.reload();
      await page.getByTestId('approve').waitFor({ timeout: 20_000 });
      // The whole chat is back, in order, and the waiting turn shows once (the resume replaces it, adds nothing).
      const wholeChat: ChatOnPage = {
        texts: [`${marker} say hello`, 'Hello before the reload.', 'now delete reload.txt'],
        assistantMessages: 2,
        toolCalls: 1,
      };
      expect(await shownOnceSettled(page, wholeChat)).toEqual(wholeChat);
      expect(await page.getByTestId('tool').textContent()).toContain('reload.txt');
      await page.getByTestId('approve').click();
      await page.getByText('Deleted reload.txt after the reload.').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('output').textContent()).toContain('reload.txt');
    });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'reload.txt')).toHaveLength(1);
  });

  it('queues a message sent while an approval waits, says so, keeps the buttons working, and answers it after the decision', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'queue.txt' } }] },
      { text: 'Deleted queue.txt.' },
      { text: 'Here is the answer to your second question.' },
    );
    await inPage('queue', async (page) => {
      await page.goto(`${example.url}/?chat=queue-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} delete queue.txt`);
      await page.getByTestId('send').click();
      await page.getByTestId('approve').waitFor({ timeout: 20_000 });

      await page.getByTestId('input').fill('and what is the weather?');
      await page.getByTestId('send').click();
      await page.getByTestId('queued-note').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('message-queued').textContent()).toContain('and what is the weather?');
      expect(await page.getByTestId('status').textContent()).toBe(
        'A tool call waits for your decision. Your queued message will be sent after.',
      );
      expect(await page.getByTestId('approve').isEnabled()).toBe(true);
      await keepScreenshot(page, 'queued-message');

      await page.getByTestId('approve').click();
      await page.getByText('Deleted queue.txt.').waitFor({ timeout: 20_000 });
      await page.getByText('Here is the answer to your second question.').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('message-queued').count()).toBe(0);
      await page.getByText('Ready.', { exact: true }).waitFor({ timeout: 20_000 });
    });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'queue.txt')).toHaveLength(1);
  });

  it('keeps a queued message through a reload, shows it as queued, and sends it after the decision', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'kept-queue.txt' } }] },
      { text: 'Deleted kept-queue.txt.' },
      { text: 'Answer to the message queued before the reload.' },
    );
    const chatId = `keepq-${marker.slice(6, 14)}`;
    await inPage('queue-reload', async (page) => {
      await page.goto(`${example.url}/?chat=${chatId}`);
      await page.getByTestId('input').fill(`${marker} delete kept-queue.txt`);
      await page.getByTestId('send').click();
      await page.getByTestId('approve').waitFor({ timeout: 20_000 });
      await page.getByTestId('input').fill('a message queued before the reload');
      await page.getByTestId('send').click();
      await page.getByTestId('queued-note').waitFor({ timeout: 20_000 });

      await page.reload();
      await page.getByTestId('approve').waitFor({ timeout: 20_000 });
      await page.getByTestId('queued-note').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('message-queued').textContent()).toContain('a message queued before the reload');
      // Not sent yet: the conversation holds no queued message, only this tab does.
      expect((await stack.tollgate.conversationState(`chat:ana:${chatId}`)).queued).toEqual([]);
      await keepScreenshot(page, 'queued-after-reload');

      await page.getByRole('button', { name: 'Approve deleteFile' }).click();
      await page.getByText('Deleted kept-queue.txt.').waitFor({ timeout: 20_000 });
      await page.getByText('Answer to the message queued before the reload.').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('message-queued').count()).toBe(0);
      expect(await page.getByTestId('message-user').allTextContents()).toEqual([
        `${marker} delete kept-queue.txt`,
        'a message queued before the reload',
      ]);
      // Sent once: a reload now shows it in the history only, not queued again.
      await page.reload();
      await page.getByText('Answer to the message queued before the reload.').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('message-queued').count()).toBe(0);
    });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'kept-queue.txt')).toHaveLength(1);
  });

  it('sends a decision on one of two waiting calls at once, so it survives a reload', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      {
        toolCalls: [
          { name: 'deleteFile', arguments: { path: 'first.txt' } },
          { name: 'deleteFile', arguments: { path: 'second.txt' } },
        ],
      },
      { text: 'Deleted both.' },
    );
    await inPage('partial', async (page) => {
      await page.goto(`${example.url}/?chat=partial-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} delete two files`);
      await page.getByTestId('send').click();
      await page.getByTestId('approve').nth(1).waitFor({ timeout: 20_000 });
      // Two calls of one tool: their buttons are told apart by the argument.
      await page.getByRole('button', { name: 'Approve deleteFile (path: first.txt)', exact: true }).click();
      await page.getByText('Approved; it runs once the other waiting calls are decided.').waitFor({ timeout: 20_000 });
      await page.getByText('A tool call waits for your decision.', { exact: true }).waitFor({ timeout: 20_000 });
      await keepScreenshot(page, 'partial-decision');

      await page.reload();
      await page.getByTestId('approve').waitFor({ timeout: 20_000 });
      await page.getByText('Ready.').or(page.getByText('A tool call waits for your decision.')).waitFor();
      // The first decision was sent and recorded: one call still waits, the other shows as approved.
      expect(await page.getByTestId('approve').count()).toBe(1);
      expect(await page.locator('[data-state="approval-responded"]').textContent()).toContain('first.txt');
      await page.getByTestId('approve').click();
      await page.getByText('Deleted both.').waitFor({ timeout: 20_000 });
    });
    const paths = stack.runs.map((run) => (run.input as { path?: string }).path);
    expect(paths.filter((path) => path === 'first.txt' || path === 'second.txt').sort()).toEqual([
      'first.txt',
      'second.txt',
    ]);
  });

  it('refuses an oversized message with a sentence naming the limit, and the chat stays readable and usable', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(marker, { text: 'Short and fine.' }, { text: 'Still here after the refusal.' });
    const chatId = `large-${marker.slice(6, 14)}`;
    await inPage('oversized', async (page) => {
      await page.goto(`${example.url}/?chat=${chatId}`);
      await page.getByTestId('input').fill(`${marker} hello`);
      await page.getByTestId('send').click();
      await page.getByText('Short and fine.').waitFor({ timeout: 20_000 });
      await page.getByText('Ready.', { exact: true }).waitFor({ timeout: 20_000 });

      // One unbroken 120,000-character word: over the limit, and far wider than the page.
      await page.getByTestId('input').fill('x'.repeat(120_000));
      await page.getByTestId('send').click();
      const error = page.getByTestId('error');
      await error.waitFor({ timeout: 20_000 });
      expect(await error.textContent()).toBe(
        'The message has 120,000 characters; a chat message may have at most 100,000. Shorten it, or attach the text as a file.',
      );
      // The refused message is not shown as sent: it is back in the box, to shorten.
      expect(await page.getByTestId('message-user').count()).toBe(1);
      expect((await page.getByTestId('input').inputValue()).length).toBe(120_000);
      // Nothing runs past the page's right edge.
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await keepScreenshot(page, 'oversized-message');

      // A long unbroken word that fits the limit wraps inside its message.
      await page.getByTestId('input').fill(`${'y'.repeat(3_000)}`);
      await page.getByTestId('send').click();
      await page.getByText('Still here after the refusal.').waitFor({ timeout: 20_000 });
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await keepScreenshot(page, 'long-word');

      // The chat id is not broken: its history loads after a reload, in order.
      await page.reload();
      await page.getByText('Still here after the refusal.').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('error').count()).toBe(0);
      expect(await page.getByTestId('message-user').count()).toBe(2);
    });
    // No workflow saw the refused message: the model was asked twice, never with the long word.
    const requests = stack.model.requestsFor(marker);
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests.map((request) => request.body))).not.toContain('x'.repeat(1000));
  });

  it('names each button by its tool, labels the reason box, announces a new approval, summarises the arguments, and works by keyboard', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'keyboard.txt' } }] },
      { text: 'Not deleted, as you asked.' },
    );
    await inPage('accessible', async (page) => {
      await page.goto(`${example.url}/?chat=keys-${marker.slice(6, 14)}`);
      await page.getByLabel('Message to the agent').focus();
      await page.keyboard.type(`${marker} delete keyboard.txt`);
      await page.keyboard.press('Enter');

      const approve = page.getByRole('button', { name: 'Approve deleteFile' });
      await approve.waitFor({ timeout: 20_000 });
      expect(
        await page.getByRole('button', { name: 'Deny deleteFile (path: keyboard.txt)', exact: true }).count(),
      ).toBe(1);
      const announcer = page.getByTestId('announcer');
      expect(await announcer.getAttribute('aria-live')).toBe('polite');
      expect(await announcer.textContent()).toBe('A tool call waits for your approval: deleteFile.');
      // Arguments read as "path keyboard.txt"; the raw JSON is one click away.
      expect(await page.getByTestId('arguments').innerText()).toMatch(/^path\s+keyboard\.txt$/);
      expect(await page.getByTestId('raw-input').isVisible()).toBe(false);
      await page.getByText('Raw input').click();
      expect(JSON.parse((await page.getByTestId('raw-input').textContent()) ?? '')).toEqual({ path: 'keyboard.txt' });
      await keepScreenshot(page, 'approval-card');

      // Keyboard only: Tab from Approve to the labelled reason box (no Allow in this chat on one's own request; the
      // Allow test checks the order where it is offered), type, Tab past the note to Deny, Enter.
      await approve.focus();
      await page.keyboard.press('Tab');
      const reason = page.getByLabel('Reason for denying deleteFile (optional)');
      expect(await page.evaluate('document.activeElement.id')).toBe(await reason.getAttribute('id'));
      await page.keyboard.type('keep it');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByTestId('denied').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('denied').textContent()).toBe('Denied: keep it');
      await page.getByText('Not deleted, as you asked.').waitFor({ timeout: 20_000 });
    });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'keyboard.txt')).toHaveLength(0);
  });

  it('after a reload, shows a message the conversation queued behind an approval as queued, and Approve still decides', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'elsewhere.txt' } }] },
      { text: 'Deleted elsewhere.txt.' },
      { text: 'Answer to the message from the other tab.' },
    );
    const chatId = `other-${marker.slice(6, 14)}`;
    await inPage('server-queued', async (page) => {
      await page.goto(`${example.url}/?chat=${chatId}`);
      await page.getByTestId('input').fill(`${marker} delete elsewhere.txt`);
      await page.getByTestId('send').click();
      await page.getByTestId('approve').waitFor({ timeout: 20_000 });

      // Another client (a second tab, a script) sends a message while the approval waits: the conversation queues it.
      const gone = new AbortController();
      void fetch(`${stack.gateway.url}/api/chat`, {
        method: 'POST',
        signal: gone.signal,
        headers: { authorization: `Bearer ${testTokens.ana}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          id: chatId,
          trigger: 'submit-message',
          messages: [{ id: 'other', role: 'user', parts: [{ type: 'text', text: 'a message from the other tab' }] }],
        }),
      }).catch(() => undefined);
      await waitFor(async () => (await stack.tollgate.conversationState(`chat:ana:${chatId}`)).queued.length === 1);
      gone.abort();

      await page.reload();
      await page.getByTestId('queued-note').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('message-queued').textContent()).toContain('a message from the other tab');
      await page.getByRole('button', { name: 'Approve deleteFile' }).click();
      await page.getByText('Deleted elsewhere.txt.').waitFor({ timeout: 20_000 });
      await page.getByText('Answer to the message from the other tab.').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('message-queued').count()).toBe(0);
      expect(await page.getByTestId('message-user').allTextContents()).toEqual([
        `${marker} delete elsewhere.txt`,
        'a message from the other tab',
      ]);
    });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'elsewhere.txt')).toHaveLength(1);
  });

  it('lets an editor change the arguments on the approval card; the tool runs with them and the result says so', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deploy', arguments: { service: 'web' } }] },
      { text: 'Deployed, with your change.' },
    );
    await inPage('edit', async (page) => {
      await page.goto(`${example.url}/?chat=edit-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} deploy web`);
      await page.getByTestId('send').click();
      const edit = page.getByRole('button', { name: 'Edit the arguments of deploy (service: web)' });
      await edit.waitFor({ timeout: 20_000 });
      await edit.click();
      const box = page.getByLabel('Arguments deploy runs with if you approve (JSON)');
      expect(JSON.parse(await box.inputValue())).toEqual({ service: 'web' });
      await box.fill('{"service": ');
      await page.getByTestId('approve-edited').click();
      expect(await page.getByTestId('edit-problem').textContent()).toMatch(/^The arguments are not JSON/);
      await box.fill('{"service": "api"}');
      expect(await page.getByTestId('edit-problem').count()).toBe(0);
      await keepScreenshot(page, 'approval-card-edit');
      await page.getByRole('button', { name: 'Approve deploy with the edited arguments' }).click();
      await page.getByTestId('output').waitFor({ timeout: 20_000 });
      const output = (await page.getByTestId('output').textContent()) ?? '';
      expect(output).toContain('changed the arguments of this call');
      expect(output).toContain('deployed api');
      await page.getByText('Deployed, with your change.').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('edited').textContent()).toBe('Approved with edited arguments by ana: service api');
      await keepScreenshot(page, 'approval-card-edited');
      // Other tools offer no Edit: the operator named editors for deploy only.
    });
    const deploys = stack.runs.filter((run) => run.tool === 'deploy' && run.toolCallId.length > 0);
    expect(deploys.map((run) => run.input)).toContainEqual({ service: 'api' });
    expect(deploys.map((run) => run.input)).not.toContainEqual({ service: 'web' });
  });

  it('offers no Edit where the operator names no editors', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'no-edit.txt' } }] },
      { text: 'Not deleted.' },
    );
    await inPage('no-edit', async (page) => {
      await page.goto(`${example.url}/?chat=noedit-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} delete no-edit.txt`);
      await page.getByTestId('send').click();
      await page.getByTestId('approve').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('edit').count()).toBe(0);
      await page.getByTestId('deny').click();
      await page.getByText('Not deleted.').waitFor({ timeout: 20_000 });
    });
  });
  it("offers no Allow in this chat on one's own request, and says plainly why", async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'allow-own.txt' } }] },
      { text: 'Not deleted.' },
    );
    await inPage('allow-own', async (page) => {
      await page.goto(`${example.url}/?chat=allow-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} delete allow-own.txt`);
      await page.getByTestId('send').click();
      const card = page.getByRole('group', { name: 'Decision on deleteFile (path: allow-own.txt)' });
      await card.getByRole('button', { name: 'Approve deleteFile (path: allow-own.txt)' }).waitFor({ timeout: 20_000 });
      expect(await card.getByTestId('allow-note').textContent()).toBe('Only a teammate can allow your own requests.');
      expect(await page.getByTestId('allow-in-chat').count()).toBe(0);
      await keepScreenshot(page, 'chat-allow-own-request');
      await page.getByTestId('deny').click();
      await page.getByText('Not deleted.').waitFor({ timeout: 20_000 });
    });
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'allow-own.txt')).toHaveLength(0);
  });

  it("offers a teammate Allow in this chat (after Approve, before the reason box) on another's request; it approves and later calls run without asking", async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'allow-team.txt' } }] },
      { text: 'Deleted allow-team.txt.' },
      // Bob's next message in the same chat (the model server follows the chat's first marker).
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'allow-later.txt' } }] },
      { text: 'Deleted allow-later.txt.' },
    );
    // Bob's request in the chat Ana's page shows: Ana is the teammate who may allow it.
    const chat = `team-${marker.slice(6, 14)}`;
    const conversationId = `chat:ana:${chat}`;
    await stack.tollgate.sendMessage(conversationId, { content: `${marker} delete allow-team.txt`, requester: 'bob' });
    await inPage('allow-teammate', async (page) => {
      await page.goto(`${example.url}/?chat=${chat}`);
      const allow = page.getByRole('button', {
        name: 'Allow deleteFile in this chat, approving deleteFile (path: allow-team.txt)',
      });
      await allow.waitFor({ timeout: 20_000 });
      expect(await allow.textContent()).toBe('Allow in this chat');
      expect(await page.getByTestId('allow-note').count()).toBe(0);
      // Keyboard order where the button is offered: Approve, Allow in this chat, then the labelled reason box.
      const approve = page.getByRole('button', { name: 'Approve deleteFile (path: allow-team.txt)' });
      await waitFor(() => approve.isEnabled());
      await approve.focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.dataset.testid')).toBe('allow-in-chat');
      await page.keyboard.press('Tab');
      const reason = page.getByLabel('Reason for denying deleteFile (optional)');
      expect(await page.evaluate('document.activeElement.id')).toBe(await reason.getAttribute('id'));
      await keepScreenshot(page, 'chat-allow-teammate');
      await allow.click();
      await page.getByTestId('output').waitFor({ timeout: 20_000 });
      await page.getByText('Deleted allow-team.txt.').waitFor({ timeout: 20_000 });
    });
    // Bob's next call of deleteFile in this chat runs without asking anyone: Ana's grant decides it.
    const { turnId } = await stack.tollgate.sendMessage(conversationId, {
      content: 'delete allow-later.txt',
      requester: 'bob',
    });
    await waitFor(async () => stack.runs.some((run) => (run.input as { path?: string }).path === 'allow-later.txt'));
    const laterTurn = await stack.tollgate.state(turnId);
    expect(laterTurn.audit).toEqual([
      expect.objectContaining({
        decision: 'approved',
        via: 'grant',
        grant: expect.objectContaining({ grantedBy: 'ana' }),
      }),
    ]);
  });

  it('shows a refused decision on its card, which waits again with its buttons, not "Approved; running…"', async () => {
    const marker = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'deleteFile', arguments: { path: 'refused.txt' } }] },
      { text: 'Deleted refused.txt.' },
    );
    // Bob's request that only Carol may decide, in the chat Ana's page shows: Ana's Approve is refused.
    const chat = `refused-${marker.slice(6, 14)}`;
    const conversationId = `chat:ana:${chat}`;
    await stack.tollgate.sendMessage(
      conversationId,
      { content: `${marker} delete refused.txt`, requester: 'bob' },
      { turn: { approvalRules: { approvers: ['carol'] } } },
    );
    await inPage('decision-refused', async (page) => {
      await page.goto(`${example.url}/?chat=${chat}`);
      const card = page.getByRole('region', { name: 'Tool call: deleteFile' });
      const approve = card.getByRole('button', { name: 'Approve deleteFile (path: refused.txt)' });
      await approve.waitFor({ timeout: 20_000 });
      await waitFor(() => approve.isEnabled());
      await approve.click();
      const refused = card.getByTestId('refused');
      await refused.waitFor({ timeout: 20_000 });
      expect(await refused.getAttribute('role')).toBe('alert');
      expect(await refused.textContent()).toMatch(
        /^Not done: "ana" may not decide approval ".+": it is limited to named approvers\.$/,
      );
      // The call waits again: its buttons are live, and it does not claim to run.
      expect(await card.getAttribute('data-state')).toBe('approval-requested');
      expect(await approve.isEnabled()).toBe(true);
      expect(await card.getByTestId('decided').count()).toBe(0);
      expect(await page.getByText('Approved; running…').count()).toBe(0);
      await keepScreenshot(page, 'chat-decision-refused');
    });
    const { currentTurnId } = await stack.tollgate.conversationState(conversationId);
    const pending = await stack.tollgate.pending({ workflowId: currentTurnId! });
    expect(pending).toHaveLength(1);
    expect(stack.runs.filter((run) => (run.input as { path?: string }).path === 'refused.txt')).toHaveLength(0);
    await stack.tollgate.decide(pending[0]!.approvalId, { approved: false, approver: 'carol' });
  });

  it("draws a sub-agent's waiting call inside its agent's tool call, and Approve there lets the tree finish", async () => {
    const marker = uniqueMarker();
    const writing = uniqueMarker();
    const reading = uniqueMarker();
    stack.model.scriptFor(
      marker,
      { toolCalls: [{ name: 'writer', arguments: { task: `${writing} a report on draft.md` } }] },
      { text: 'Your report is written.' },
    );
    stack.model.scriptFor(
      writing,
      { toolCalls: [{ name: 'reader', arguments: { task: `${reading} read draft.md` } }] },
      { text: 'Report: agents ask before they act.' },
    );
    stack.model.scriptFor(
      reading,
      { toolCalls: [{ name: 'writeFile', arguments: { path: 'notes.md', content: `Ask first ${marker}.` } }] },
      { text: 'Noted in notes.md.' },
    );
    let waitingApproval = '';
    await inPage('sub-agent', async (page) => {
      await page.goto(`${example.url}/?chat=nested-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} write me a report`);
      await page.getByTestId('send').click();

      // The reader's call shows inside the writer's call, with the path that led to it and its arguments.
      const writerCall = page.getByRole('region', { name: 'Tool call: writer' });
      const nested = writerCall.getByRole('region', { name: 'Sub-agent call: writer → reader → writeFile' });
      await nested.waitFor({ timeout: 30_000 });
      expect(await nested.getByTestId('sub-agent-path').textContent()).toBe('writer → reader → writeFile');
      expect(await nested.getByTestId('sub-agent-arguments').innerText()).toMatch(
        /^path\s+notes\.md\s+content\s+Ask first/,
      );
      expect(await page.getByTestId('status').textContent()).toBe('A tool call waits for your decision.');
      expect(await page.getByTestId('announcer').textContent()).toBe(
        'A tool call waits for your approval: writer → reader → writeFile.',
      );
      const [waiting] = (await stack.tollgate.conversationState(`chat:ana:nested-${marker.slice(6, 14)}`)).pending;
      waitingApproval = waiting?.approvalId ?? '';
      await keepScreenshot(page, 'sub-agent-waiting');

      await nested.getByRole('button', { name: 'Approve writer → reader → writeFile (path: notes.md)' }).click();
      await page.getByText('Your report is written.').waitFor({ timeout: 30_000 });
      expect(await nested.getByTestId('sub-agent-approve').count()).toBe(0);
      expect(await writerCall.getByTestId('output').textContent()).toContain('Report: agents ask before they act.');
      await page.getByText('Ready.', { exact: true }).waitFor({ timeout: 20_000 });
      await keepScreenshot(page, 'sub-agent-decided');
    });
    expect(files.get('notes.md')).toBe(`Ask first ${marker}.`);
    // Decided by the page's user, as the reader (the turn that waited, named by the approval) recorded it.
    expect(workflowIdOfApproval(waitingApproval)).toMatch(/\/writer-1\/reader-1$/);
    const reader = await stack.tollgate.state(workflowIdOfApproval(waitingApproval)!);
    expect(reader.audit).toEqual([
      expect.objectContaining({ decision: 'approved', approver: 'ana', toolName: 'writeFile' }),
    ]);
  });

  it('draws each sub-agent call inside its own call when the same agent tool runs twice at once', async () => {
    const marker = uniqueMarker();
    const [first, second] = [uniqueMarker(), uniqueMarker()];
    const [firstReading, secondReading] = [uniqueMarker(), uniqueMarker()];
    stack.model.scriptFor(
      marker,
      {
        toolCalls: [
          { name: 'writer', arguments: { task: `${first} a report on one.md` } },
          { name: 'writer', arguments: { task: `${second} a report on two.md` } },
        ],
      },
      { text: 'Both reports are written.' },
    );
    for (const [writing, reading, file] of [
      [first, firstReading, 'one.md'],
      [second, secondReading, 'two.md'],
    ] as const) {
      stack.model.scriptFor(
        writing,
        { toolCalls: [{ name: 'reader', arguments: { task: `${reading} read ${file}` } }] },
        { text: `Report on ${file}.` },
      );
      stack.model.scriptFor(
        reading,
        { toolCalls: [{ name: 'writeFile', arguments: { path: `notes-${file}`, content: `${marker} ${file}` } }] },
        { text: `Noted ${file}.` },
      );
    }
    await inPage('two-sub-agents', async (page) => {
      await page.goto(`${example.url}/?chat=twice-${marker.slice(6, 14)}`);
      await page.getByTestId('input').fill(`${marker} write two reports`);
      await page.getByTestId('send').click();

      // Both writer calls run; each holds the reader's call of its own sub-agent, and only that one.
      const writerCalls = page.getByRole('region', { name: 'Tool call: writer' });
      const nestedIn = (index: number) =>
        writerCalls.nth(index).getByRole('region', { name: 'Sub-agent call: writer → reader → writeFile' });
      await nestedIn(0).waitFor({ timeout: 30_000 });
      await nestedIn(1).waitFor({ timeout: 30_000 });
      expect(await nestedIn(0).count()).toBe(1);
      expect(await nestedIn(1).count()).toBe(1);
      expect(await nestedIn(0).getByTestId('sub-agent-arguments').innerText()).toMatch(/notes-one\.md/);
      expect(await nestedIn(1).getByTestId('sub-agent-arguments').innerText()).toMatch(/notes-two\.md/);
      await keepScreenshot(page, 'two-sub-agents-waiting');

      await nestedIn(1).getByTestId('sub-agent-approve').click();
      await waitFor(async () => files.get('notes-two.md') === `${marker} two.md`);
      await nestedIn(0).getByTestId('sub-agent-approve').click();
      await page.getByText('Both reports are written.').waitFor({ timeout: 30_000 });
    });
    expect(files.get('notes-one.md')).toBe(`${marker} one.md`);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('Timed out waiting.');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
