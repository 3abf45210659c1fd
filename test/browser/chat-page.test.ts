import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startChatExample, type ChatExample } from '../../src/dev/serve-chat-example';
import { uniqueMarker } from '../support/test-environment';
import { testTokens } from '../gateway/gateway-fixture';
import { startChatStack, type ChatStack } from '../gateway/chat/chat-fixture';

const screenshotFolder = path.resolve(__dirname, '../../.tollgate/browser-failures');

/** A Chromium to drive: CHROME_PATH, or the first known browser on PATH (Debian's `chromium` package). */
function findBrowser(): string {
  if (process.env.CHROME_PATH) return process.env.CHROME_PATH;
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
      const candidate = path.join(folder, name);
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new Error('No Chromium found: set CHROME_PATH, or install one (apt-get install -y chromium).');
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
    stack = await startChatStack({ allowedOrigins: [`http://127.0.0.1:${port}`] });
    example = await startChatExample({ gatewayUrl: stack.gateway.url, token: testTokens.ana, port });
    browser = await chromium.launch({
      executablePath: findBrowser(),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
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
      await page.getByText('ready', { exact: true }).waitFor({ timeout: 20_000 });
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
});
