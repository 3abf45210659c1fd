import fs from 'node:fs';
import path from 'node:path';
import type { CommandResult } from '../../../src/tools/workspace';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

/** Whether a process still runs; a zombie waiting to be reaped counts as gone. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Waits up to 10 s (a busy machine reaps slowly) for `pid` to be gone. */
async function waitUntilGone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 200 && isRunning(pid); attempt++) await new Promise((done) => setTimeout(done, 50));
  return !isRunning(pid);
}

// A command that must be cut short sleeps ten minutes: longer than a test may run, so a call that returns at all was
// cut short, whatever the machine's load (no test here bounds how long a call took).
describe('bash', () => {
  let workspace: TestWorkspace;
  const startedPids: number[] = [];

  beforeEach(() => {
    workspace = createTestWorkspace();
  });

  afterEach(() => {
    for (const pid of startedPids.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
    workspace.remove();
  });

  const backgroundPid = () => {
    const pid = Number(fs.readFileSync(path.join(workspace.root, 'background.pid'), 'utf8'));
    startedPids.push(pid);
    return pid;
  };

  it('tells the model it runs in the workspace folder', () => {
    expect(workspace.tool('bash').description).toContain('runs in the workspace folder');
  });

  it('runs the command in the workspace folder and returns its output', async () => {
    workspace.write('hello.txt', 'hi');
    await expect(workspace.call('bash', { command: 'pwd && cat hello.txt' })).resolves.toEqual({
      exitCode: 0,
      stdout: `${workspace.root}\nhi`,
      stderr: '',
      timedOut: false,
    });
  });

  it('returns a non-zero exit as a result, not an error', async () => {
    await expect(workspace.call('bash', { command: 'echo oops >&2; exit 3' })).resolves.toEqual({
      exitCode: 3,
      stdout: '',
      stderr: 'oops\n',
      timedOut: false,
    });
  });

  it('kills a command that runs past its timeout and says it timed out', async () => {
    const result = (await workspace.call('bash', { command: 'sleep 600', timeoutMs: 300 })) as CommandResult;
    expect(result).toEqual({
      exitCode: 137,
      stdout: '',
      stderr: '[Killed after the 300 ms timeout.]',
      timedOut: true,
    });
  });

  it('kills everything the command started when it times out, not only bash', async () => {
    const result = (await workspace.call('bash', {
      command: 'sleep 600 & echo $! > background.pid; wait',
      timeoutMs: 300,
    })) as CommandResult;
    expect(result.timedOut).toBe(true);
    expect(await waitUntilGone(backgroundPid())).toBe(true);
  });

  it('does not let the input lengthen the configured timeout', async () => {
    const strict = createTestWorkspace({ bashTimeoutMs: 300 });
    try {
      const result = (await strict.call('bash', { command: 'sleep 600', timeoutMs: 3_600_000 })) as CommandResult;
      expect(result).toMatchObject({ timedOut: true, stderr: '[Killed after the 300 ms timeout.]' });
    } finally {
      strict.remove();
    }
  });

  it('caps long output, keeping its beginning and end with a note', async () => {
    const capped = createTestWorkspace({ maxOutputBytes: 1000 });
    try {
      const result = (await capped.call('bash', {
        command: 'echo FIRST; head -c 100000 /dev/zero | tr "\\0" x; echo; echo LAST',
      })) as CommandResult;
      expect(result.exitCode).toBe(0);
      expect(result.stdout.startsWith('FIRST\nxxx')).toBe(true);
      expect(result.stdout.endsWith('xxx\nLAST\n')).toBe(true);
      expect(result.stdout).toContain('bytes omitted: output capped at 1000 bytes');
      expect(Buffer.byteLength(result.stdout)).toBeLessThan(1100);
    } finally {
      capped.remove();
    }
  });

  it('kills the command when the call is aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(
      workspace.call(
        'bash',
        { command: 'sleep 600 & echo $! > background.pid; wait' },
        { abortSignal: controller.signal },
      ),
    ).rejects.toThrow('The command was cancelled while running; its processes were killed.');
    expect(await waitUntilGone(backgroundPid())).toBe(true);
  });

  it('does not start a command when the call is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      workspace.call('bash', { command: 'touch ran.txt' }, { abortSignal: controller.signal }),
    ).rejects.toThrow(/cancelled before it started/);
    expect(fs.existsSync(path.join(workspace.root, 'ran.txt'))).toBe(false);
  });

  it('heartbeats every second while the command runs', async () => {
    let heartbeats = 0;
    await workspace.call('bash', { command: 'sleep 3.5' }, { heartbeat: () => heartbeats++ });
    expect(heartbeats).toBeGreaterThanOrEqual(2);
  });

  it('returns without waiting for a background process the command left running', async () => {
    const result = (await workspace.call('bash', {
      command: 'sleep 600 & echo $! > background.pid; echo started',
    })) as CommandResult;
    expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
    // Returned while the background process still runs.
    expect(isRunning(backgroundPid())).toBe(true);
  });
});
