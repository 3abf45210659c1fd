import { existsSync } from 'node:fs';
import path from 'node:path';

/** A Chromium to drive: CHROME_PATH, or the first known browser on PATH (Debian's `chromium` package). */
export function findBrowser(): string {
  if (process.env.CHROME_PATH) return process.env.CHROME_PATH;
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
      const candidate = path.join(folder, name);
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new Error('No Chromium found: set CHROME_PATH, or install one (apt-get install -y chromium).');
}

/** Chromium's flags for a headless run on a test machine. */
export const headlessBrowserArguments = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];
