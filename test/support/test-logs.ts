import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where test runs keep logs: one file per test file, and the dev server's own. */
export const testLogFolder = path.resolve(__dirname, '../../.tollgate/test-logs');

/** The log file of the test file now running, e.g. `.tollgate/test-logs/workflows__agent-turn.test.log`. */
export function testLogFile(): string {
  const testPath = expect.getState().testPath ?? 'unknown.test.ts';
  const relative = path.relative(path.resolve(__dirname, '..'), testPath).replace(/\.ts$/, '');
  return path.join(testLogFolder, `${relative.split(path.sep).join('__')}.log`);
}

let installedFor: string | undefined;

/**
 * Sends the Temporal SDK's logs (worker state changes, workflow and activity `log` calls, Core's warnings) to
 * this test file's log instead of the test output. Jest loads modules afresh for each test file, so each file
 * installs its own runtime logger; call it before the first worker or native connection of the file.
 */
export function routeWorkerLogsToFile(): string {
  const file = testLogFile();
  if (installedFor === file) return file;
  installedFor = file;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `# ${path.basename(file)}: Temporal SDK logs of one test file, newest run only\n`);
  const write = (entry: LogEntry) => {
    const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
    const meta = entry.meta && Object.keys(entry.meta).length > 0 ? ` ${safeJson(entry.meta)}` : '';
    appendFileSync(file, `${time} ${entry.level} ${entry.message}${meta}\n`);
  };
  try {
    Runtime.install({ logger: new DefaultLogger('INFO', write) });
  } catch {
    // A runtime already exists in this module registry (a worker started first); its logger stays.
  }
  return file;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));
  } catch {
    return String(value);
  }
}
