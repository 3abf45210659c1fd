import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freeDevPorts, startDev, stopDev, type DevPorts, type DevProcess } from '../support/dev-stack';
import { waitFor } from '../support/test-environment';
import { temporaryFolder } from '../support/temporary-folder';

// Starts `npm run dev` as test/dev/dev-runner.test.ts does, on its own ports and state folder.
const execFileAsync = promisify(execFile);
const repository = path.resolve(__dirname, '../..');
const cliPath = path.join(repository, 'bin/tollgate.js');
const folder = temporaryFolder('tollgate-cli-restart-');
const workspace = path.join(folder, 'workspace');
let ports: DevPorts;
const devOptions = () => ({ stateFolder: path.join(folder, 'state'), workspace, ports });

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

describe('tollgate run through a dev stack restart', () => {
  let dev: DevProcess | undefined;
  let run: ChildProcess | undefined;

  beforeAll(async () => {
    ports = await freeDevPorts();
  });
  afterAll(async () => {
    if (run && run.exitCode === null) run.kill('SIGKILL');
    if (dev) await stopDev(dev);
  });

  it('keeps following a waiting turn while npm run dev stops and starts, then shows the decision and the result', async () => {
    dev = await startDev(devOptions());
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
    // Said at once (the SDK's own retries of a call, alone, kept it silent for twenty seconds).
    await waitFor(
      async () => output,
      (text) => text.includes(`Temporal unavailable at 127.0.0.1:${ports.temporal}`),
      10_000,
    );
    expect(run.exitCode).toBeNull();
    dev = await startDev(devOptions());

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

  it('`follow` started while Temporal is down waits for it, then follows the turn to its result', async () => {
    dev ??= await startDev(devOptions());
    const started = await execFileAsync(process.execPath, [cliPath, 'run', 'write again to again.txt', '--detach'], {
      env: cliEnvironment(),
    });
    const workflowId = /Started turn (\S+)/.exec(started.stdout)?.[1];
    expect(workflowId).toBeDefined();

    await stopDev(dev);
    dev = undefined;
    const follow = spawn(process.execPath, [cliPath, 'follow', workflowId!], { env: cliEnvironment() });
    run = follow;
    let output = '';
    follow.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    follow.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => follow.once('exit', resolve));
    await waitFor(
      async () => output,
      (text) => text.includes(`Temporal unavailable at 127.0.0.1:${ports.temporal}, retrying`),
      30_000,
    );
    // Still waiting, not failed, a while later.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(follow.exitCode).toBeNull();

    dev = await startDev(devOptions());
    const approvalId = await waitFor(
      async () => /approvalId (\S+)/.exec(output)?.[1],
      (id) => id !== undefined,
      60_000,
    );
    expect(output).toContain(`Connected to Temporal at 127.0.0.1:${ports.temporal}.`);
    await execFileAsync(process.execPath, [cliPath, 'approve', approvalId!], { env: cliEnvironment() });
    expect(await exited).toBe(0);
    expect(output).toMatch(/⇒ writeFile approved/);
    expect(output).toMatch(/Turn completed after \d+ steps?\./);
    expect(output).not.toMatch(/\n\s+at /);
    expect(existsSync(path.join(workspace, 'again.txt'))).toBe(true);
  }, 240_000);
});
