import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../src/dev/ports';
import { waitFor } from '../support/test-environment';

// Starts `npm run dev` as test/dev/dev-runner.test.ts does, on its own ports and state folder.
const execFileAsync = promisify(execFile);
const repository = path.resolve(__dirname, '../..');
const cliPath = path.join(repository, 'bin/tollgate.js');
const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-cli-restart-'));
const workspace = path.join(folder, 'workspace');
let ports: { temporal: number; ui: number; gateway: number; chat: number };

function devEnvironment(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: '',
    OPENAI_API_KEY: '',
    TOLLGATE_STATE_DIR: path.join(folder, 'state'),
    TOLLGATE_WORKSPACE: workspace,
    TOLLGATE_DEV_PORT: String(ports.temporal),
    TOLLGATE_DEV_UI_PORT: String(ports.ui),
    TOLLGATE_GATEWAY_PORT: String(ports.gateway),
    TOLLGATE_CHAT_EXAMPLE_PORT: String(ports.chat),
    TOLLGATE_GATEWAY_TOKENS: '',
    TOLLGATE_GATEWAY_TOKENS_FILE: '',
  };
}

/** What a person's terminal has: the dev stack's address and state folder, and `npx` as the command. */
function cliEnvironment(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    TOLLGATE_TASK_QUEUE: '',
    TOLLGATE_STATE_DIR: path.join(folder, 'state'),
    TOLLGATE_GATEWAY_URL: '',
    npm_command: 'exec',
  };
}

async function startDev(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev/dev.ts'], {
    cwd: repository,
    env: devEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(
    async () => output,
    (text) => text.includes('Tollgate is running.'),
    60_000,
  );
  return child;
}

async function stopDev(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
}

describe('tollgate run through a dev stack restart', () => {
  let dev: ChildProcess | undefined;
  let run: ChildProcess | undefined;

  beforeAll(async () => {
    ports = {
      temporal: await findFreePort('127.0.0.1'),
      ui: await findFreePort('127.0.0.1'),
      gateway: await findFreePort('127.0.0.1'),
      chat: await findFreePort('127.0.0.1'),
    };
  });
  afterAll(async () => {
    if (run && run.exitCode === null) run.kill('SIGKILL');
    if (dev) await stopDev(dev);
  });

  it('keeps following a waiting turn while npm run dev stops and starts, then shows the decision and the result', async () => {
    dev = await startDev();
    run = spawn(process.execPath, [cliPath, 'run', 'write later to later.txt'], { env: cliEnvironment() });
    let output = '';
    run.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    run.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => run!.once('exit', resolve));
    const approvalId = await waitFor(
      async () => /approvalId (\S+)/.exec(output)?.[1],
      (id) => id !== undefined,
      60_000,
    );
    expect(output).toContain(`npx tollgate approve ${approvalId}`);

    // The README's restart step, with `tollgate run` still following in another terminal.
    await stopDev(dev);
    dev = undefined;
    await waitFor(
      async () => output,
      (text) => text.includes(`Temporal unavailable at 127.0.0.1:${ports.temporal}`),
      60_000,
    );
    expect(run.exitCode).toBeNull();
    dev = await startDev();

    const approved = await execFileAsync(process.execPath, [cliPath, 'approve', approvalId!], {
      env: cliEnvironment(),
    });
    expect(approved.stdout).toMatch(/writeFile approved/);
    expect(await exited).toBe(0);
    expect(output).toMatch(/⇒ writeFile approved/);
    expect(output).toMatch(/Turn completed after \d+ steps?\./);
    expect(output).not.toMatch(/\n\s+at /);
    expect(existsSync(path.join(workspace, 'later.txt'))).toBe(true);
  }, 240_000);
});
