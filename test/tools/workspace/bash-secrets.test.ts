import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { NativeConnection } from '@temporalio/worker';
import { createWorkspaceTools, resolveSandbox, type CommandResult } from '../../../src/tools/workspace';
import { createTollgateWorker } from '../../../src/worker';
import { compiledSource } from '../../support/compiled-sources';
import { temporalAddress } from '../../support/test-environment';

// The findings of issue 21: an approved bash call read the worker's environment through /proc/$PPID/environ and
// the gateway's files, and `auto` ran it unsandboxed when bubblewrap was missing. Each test starts a stand-in
// worker process with marker secrets in its environment (as a real worker is started) and runs bash in it.

const repository = path.resolve(__dirname, '../../..');
const sandboxWorks = resolveSandbox('auto', os.tmpdir()).type === 'bubblewrap';
const marker = `marker-${process.pid}-${Date.now()}`;
/** The worker's secrets, each value carrying the marker. */
const workerSecrets = {
  OPENAI_API_KEY: `sk-${marker}-openai`,
  TOLLGATE_APPROVAL_SECRET: `${marker}-approval-secret`,
};

type WorkerOutput = { result?: CommandResult; error?: string; tools?: string[] };

let base: string;
let folders: { root: string; home: string; gateway: string; signingKey: string; tokenFile: string };

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-bash-secrets-')));
  const state = path.join(base, '.tollgate');
  folders = {
    root: path.join(state, 'workspace'),
    home: path.join(base, 'home'),
    gateway: path.join(state, 'gateway'),
    signingKey: path.join(state, 'gateway', 'decision-signing-key.pem'),
    tokenFile: path.join(state, 'gateway-token'),
  };
  fs.mkdirSync(folders.gateway, { recursive: true });
  fs.writeFileSync(folders.signingKey, `-----BEGIN PRIVATE KEY-----\n${marker}-signing-key\n`, { mode: 0o600 });
  fs.writeFileSync(folders.tokenFile, `${marker}-gateway-token\n`, { mode: 0o600 });
});

afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

/** Runs `command` with bash in a stand-in worker started with `environment` on top of this one's PATH. */
async function runInWorker(
  sandbox: unknown,
  command: string,
  environment: Record<string, string> = workerSecrets,
  asUser?: number,
): Promise<WorkerOutput> {
  const options = { root: folders.root, env: { home: folders.home }, sandbox };
  const worker = [
    process.execPath,
    compiledSource('test/support/bash-in-worker-process.ts'),
    JSON.stringify(options),
    command,
  ];
  const argv =
    asUser === undefined ? worker : ['setpriv', `--reuid=${asUser}`, `--regid=${asUser}`, '--clear-groups', ...worker];
  const { stdout } = await promisify(execFile)(argv[0]!, argv.slice(1), {
    cwd: repository,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...environment },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as WorkerOutput;
}

/** Whether this test runs as root with setpriv, so that it can start the worker as a user without privileges. */
const canDropToUser = process.getuid?.() === 0 && execFileSync('sh', ['-c', 'command -v setpriv || true']).length > 0;

/** Everything an approved call would try to read the worker's and the gateway's secrets with. */
const probeCommand = () =>
  [
    'cat /proc/$PPID/environ',
    'cat /proc/*/environ',
    'env',
    `cat ${folders.signingKey} ${folders.tokenFile}`,
    'cat ../gateway/decision-signing-key.pem ../gateway-token',
    'ls /proc',
    'echo probe-finished',
  ].join('; ');

describe('an approved bash call and the secrets that guard approvals', () => {
  it('reads them all when nothing confines it, which is what the checks below must prevent', () => {
    // The same probe, run as an unconfined child of a process holding the secrets: the marker shows.
    const output = execFileSync('bash', ['-c', `bash -c '${probeCommand().replaceAll("'", "'\\''")}' 2>&1`], {
      cwd: base,
      env: { PATH: process.env.PATH ?? '', ...workerSecrets },
      encoding: 'utf8',
    });
    expect(output).toContain(workerSecrets.TOLLGATE_APPROVAL_SECRET);
    expect(output).toContain(`${marker}-signing-key`);
  });

  if (sandboxWorks) {
    it('cannot read the worker environment, its other processes or the gateway files in the bubblewrap sandbox', async () => {
      fs.mkdirSync(folders.root, { recursive: true });
      const { result } = await runInWorker({ mode: 'bubblewrap', protectedPaths: [folders.gateway] }, probeCommand());
      expect(result?.stdout).toContain('probe-finished');
      expect(`${result?.stdout}${result?.stderr}`).not.toContain(marker);
      // Only the sandbox's own processes are in its /proc.
      expect(result?.stdout).not.toContain(`\n${process.pid}\n`);
    });

    if (canDropToUser) {
      it('keeps them out of reach of a worker started as a user without privileges too, as in the image', async () => {
        const nobody = 65534;
        execFileSync('chown', ['-R', `${nobody}:${nobody}`, base]);
        const { result } = await runInWorker(
          { mode: 'bubblewrap', protectedPaths: [folders.gateway] },
          `id -u; ${probeCommand()}`,
          workerSecrets,
          nobody,
        );
        expect(result?.stdout).toMatch(/^65534\n/);
        expect(result?.stdout).toContain('probe-finished');
        expect(`${result?.stdout}${result?.stderr}`).not.toContain(marker);
      });
    }

    it('uses the sandbox by default (auto) where bubblewrap works', async () => {
      const { result } = await runInWorker(undefined, probeCommand());
      expect(result?.stdout).toContain('probe-finished');
      expect(`${result?.stdout}${result?.stderr}`).not.toContain(marker);
    });
  }

  it('leaves bash out under auto when bubblewrap is missing, rather than run it unsandboxed', async () => {
    const output = await runInWorker({ bubblewrapPath: path.join(base, 'no-bwrap') }, probeCommand());
    expect(output).toEqual({ tools: ['readFile', 'listDir', 'glob', 'grep', 'writeFile', 'editFile'] });
  });

  it('refuses sandbox "none" at start-up while the worker holds secrets, naming them', async () => {
    const output = await runInWorker('none', probeCommand());
    expect(output.result).toBeUndefined();
    expect(output.error).toMatch(/^Workspace tools: sandbox "none" refused: bash would run unsandboxed/);
    expect(output.error).toContain("the worker's OPENAI_API_KEY, TOLLGATE_APPROVAL_SECRET");
    expect(output.error).toContain('TOLLGATE_TOOL_SANDBOX=bubblewrap');
    expect(output.error).not.toContain(marker);
  });

  it('refuses sandbox "none" when the gateway runs in the worker process (its files given as protected)', async () => {
    const output = await runInWorker(
      { mode: 'none', protectedPaths: [folders.gateway, folders.tokenFile] },
      'true',
      {},
    );
    expect(output.error).toContain(`the gateway's files ${folders.gateway}, ${folders.tokenFile}`);
  });

  it('runs sandbox "none" in a worker that holds no secrets, and tells the model the truth', async () => {
    const output = await runInWorker('none', 'echo unsandboxed', { NOT_A_SECRET: 'x' });
    expect(output.result?.stdout).toBe('unsandboxed\n');
    const bash = createWorkspaceTools({ root: folders.root, sandbox: 'none' }).find((tool) => tool.name === 'bash')!;
    expect(bash.description).toContain('It is not sandboxed: it runs as the worker user and can reach what that user');
    expect(bash.description).not.toContain('not the worker environment variables');
  });

  it('refuses a workspace that holds the gateway files, in every mode', () => {
    for (const mode of ['auto', 'bubblewrap', 'none'] as const) {
      expect(() =>
        createWorkspaceTools({
          root: path.dirname(folders.gateway),
          sandbox: { mode, protectedPaths: [folders.gateway] },
        }),
      ).toThrow(`Workspace tools: the workspace ${path.dirname(folders.gateway)} overlaps ${folders.gateway}`);
    }
  });
});

describe('the worker with an unsandboxed bash', () => {
  let connection: NativeConnection | undefined;

  afterEach(async () => {
    await connection?.close();
    connection = undefined;
  });

  it('refuses to start when it holds the approval secret or a model key in code, which bash could read from its memory', async () => {
    const tools = createWorkspaceTools({ root: folders.root, env: { home: folders.home }, sandbox: 'none' });
    connection = await NativeConnection.connect({ address: temporalAddress() });
    const start = (approvalSecret: string | undefined, apiKey: string) =>
      createTollgateWorker({
        connection: connection!,
        taskQueue: `bash-secrets-${marker}`,
        tools,
        model: { apiKey, model: 'gpt-4.1-mini' },
        ...(approvalSecret && { approvalSecret }),
      });
    await expect(start(workerSecrets.TOLLGATE_APPROVAL_SECRET, 'tollgate-scripted')).rejects.toThrow(
      /^Tollgate worker: bash runs unsandboxed \(the sandbox is turned off \(sandbox "none"\)\) in a worker that holds the approval secret;/,
    );
    await expect(start(undefined, workerSecrets.OPENAI_API_KEY)).rejects.toThrow(/holds the model API key/);
  });
});

describe('the worker entry point (src/worker.ts)', () => {
  /** Runs `npm run worker`'s entry point (compiled) with `environment` and waits for it to exit (it must, here). */
  async function startWorker(environment: Record<string, string>): Promise<{ code: number; output: string }> {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [compiledSource('src/worker.ts')], {
        cwd: repository,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          TEMPORAL_ADDRESS: temporalAddress(),
          TEMPORAL_CONFIG_FILE: path.join(base, 'no-temporal-config.toml'),
          TOLLGATE_WORKSPACE: folders.root,
          TOLLGATE_STORE_DIR: path.join(base, 'store'),
          TOLLGATE_TASK_QUEUE: `bash-secrets-${marker}`,
          ...environment,
        },
        timeout: 40_000,
      });
      return { code: 0, output: stdout + stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, output: failed.stdout + failed.stderr };
    }
  }

  it('stops at start-up, saying why, when the required bubblewrap sandbox cannot be built', async () => {
    const { code, output } = await startWorker({
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      TOLLGATE_TOOL_SANDBOX: 'bubblewrap',
      // No bwrap on this PATH: node itself is started by its full path.
      PATH: path.join(base, 'empty-bin'),
    });
    expect(code).toBe(1);
    expect(output).toContain('Workspace tools: sandbox "bubblewrap" is required but bwrap (bubblewrap) was not found');
    expect(output).not.toContain('Tollgate worker on task queue');
  }, 60_000);

  it('stops at start-up under sandbox "none" while it holds the model key and the approval secret', async () => {
    const { code, output } = await startWorker({ ...workerSecrets, TOLLGATE_TOOL_SANDBOX: 'none' });
    expect(code).toBe(1);
    expect(output).toContain("could read the worker's OPENAI_API_KEY, TOLLGATE_APPROVAL_SECRET");
    expect(output).not.toContain(marker);
  }, 60_000);
});
