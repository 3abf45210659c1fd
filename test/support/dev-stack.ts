import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { compiledSource } from './compiled-sources';
import { freeStablePort } from './stable-ports';
import { waitFor } from './test-environment';

const repository = path.resolve(__dirname, '../..');

/** The ports `npm run dev` listens on. */
export interface DevPorts {
  temporal: number;
  ui: number;
  gateway: number;
  chat: number;
}

/** A running `npm run dev`, as a child process. */
export interface DevProcess {
  process: ChildProcess;
  /** What it printed so far, stdout and stderr together. */
  output: () => string;
  /** Its exit code, once it has exited. */
  exited: Promise<number | null>;
}

/** Where one `npm run dev` keeps its state and tools' files, and the ports it takes. */
export interface DevStackOptions {
  /** `TOLLGATE_STATE_DIR`. */
  stateFolder: string;
  /** `TOLLGATE_WORKSPACE`. */
  workspace: string;
  ports: DevPorts;
  /** More variables, on top of a clean development environment. */
  environment?: Record<string, string>;
  /**
   * `'shared'` (the default): a state folder without a workflow bundle starts with the one an earlier `npm run dev` of
   * this test run made, as a user's restart does (bundling takes most of a start's CPU, and the code is the same for
   * the whole run). `'own'`: it bundles, as a first start does.
   */
  bundle?: 'shared' | 'own';
  /**
   * `'compiled'` (the default): runs `src/dev/dev.ts` as the global set-up compiled it for child processes
   * (test/support/compiled-sources.ts), the same code without tsx's 2-3 s of CPU per start. `'tsx'`: as `npm run dev`
   * starts it in a checkout, for the test of that command itself.
   */
  entry?: DevEntry;
}

/** How a dev stack's code is started: compiled once for the run, or through tsx as `npm run dev` does. */
export type DevEntry = 'compiled' | 'tsx';

const entryOf = (options: DevStackOptions): DevEntry => options.entry ?? 'compiled';

/** Free ports on this machine for one `npm run dev`, below the ephemeral range: tests stop and start it again on them. */
export async function freeDevPorts(): Promise<DevPorts> {
  return {
    temporal: await freeStablePort(),
    ui: await freeStablePort(),
    gateway: await freeStablePort(),
    chat: await freeStablePort(),
  };
}

/**
 * Starts `npm run dev`'s entry point (compiled, or through tsx: {@link DevStackOptions.entry}) on free ports and a state
 * folder of its own, with none of the shell's Tollgate or Temporal settings leaking in (a test machine may export
 * some). Does not wait for it.
 */
export function spawnDev(options: DevStackOptions): DevProcess {
  const { ports } = options;
  const entry = entryOf(options);
  if (options.bundle !== 'own') takeSharedBundle(options.stateFolder, entry);
  const command = entry === 'tsx' ? ['--import', 'tsx', 'src/dev/dev.ts'] : [compiledSource('src/dev/dev.ts')];
  const child = spawn(process.execPath, command, {
    cwd: repository,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: '',
      OPENAI_API_KEY: '',
      TOLLGATE_STATE_DIR: options.stateFolder,
      TOLLGATE_WORKSPACE: options.workspace,
      TOLLGATE_DEV_PORT: String(ports.temporal),
      TOLLGATE_DEV_UI_PORT: String(ports.ui),
      TOLLGATE_GATEWAY_PORT: String(ports.gateway),
      TOLLGATE_CHAT_EXAMPLE_PORT: String(ports.chat),
      TOLLGATE_GATEWAY_TOKENS: '',
      TOLLGATE_GATEWAY_TOKENS_FILE: '',
      TOLLGATE_ACCESS_FILE: '',
      TOLLGATE_DECISION_PUBLIC_KEYS: '',
      TOLLGATE_DECISION_KEY_ID: '',
      TOLLGATE_TOOL_SANDBOX: '',
      ...options.environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, output: () => output, exited };
}

/** {@link spawnDev}, then waits until it says it is running. */
export async function startDev(options: DevStackOptions): Promise<DevProcess> {
  const dev = spawnDev(options);
  await waitFor(
    async () => dev.output(),
    (text) => text.includes('Tollgate is running.'),
    60_000,
  );
  shareBundle(options.stateFolder, entryOf(options));
  return dev;
}

/** The bundle folder `npm run dev` and `npm run worker` keep in their state folder (src/workflow-bundle-cache.ts). */
const bundlesIn = (stateFolder: string) => path.join(stateFolder, 'workflow-bundles');

/**
 * Where the run keeps the bundle its starts share, one per entry: a bundle is named by the code it was built from
 * (src/workflow-code-key.ts), and the compiled code is not the TypeScript tsx runs.
 */
function sharedBundles(entry: DevEntry): string | undefined {
  const shared = process.env.TOLLGATE_TEST_DEV_STACK_BUNDLES;
  return shared && path.join(shared, entry);
}

/** Gives a state folder with no workflow bundle yet the one an earlier start of this run made, if any. */
export function takeSharedBundle(stateFolder: string, entry: DevEntry): void {
  const shared = sharedBundles(entry);
  if (shared && existsSync(shared) && !existsSync(bundlesIn(stateFolder))) {
    cpSync(shared, bundlesIn(stateFolder), { recursive: true });
  }
}

/** Leaves the bundle a start made for the later starts of this run (the folder global-setup.ts names), once. */
export function shareBundle(stateFolder: string, entry: DevEntry): void {
  const shared = sharedBundles(entry);
  if (!shared || existsSync(shared) || !existsSync(bundlesIn(stateFolder))) return;
  mkdirSync(path.dirname(shared), { recursive: true });
  // Copied aside and renamed: test files run side by side, and none may see a half-copied folder.
  const partial = `${shared}.${process.pid}.partial`;
  cpSync(bundlesIn(stateFolder), partial, { recursive: true });
  try {
    renameSync(partial, shared);
  } catch {
    // Another test file shared its bundle first: the same code, so either will do.
    rmSync(partial, { recursive: true, force: true });
  }
}

/** Stops it as Ctrl-C does, and waits until it has exited. */
export async function stopDev(dev: DevProcess): Promise<void> {
  if (dev.process.exitCode !== null || dev.process.signalCode !== null) return;
  dev.process.kill('SIGINT');
  await dev.exited;
}
