import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection } from '@temporalio/worker';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TollgateClient } from '../../src/client';
import { isTemporalPreflightError } from '../../src/client/temporal-preflight';
import { generateDecisionKeyPair } from '../../src/gateway/decisions/decision-signing-key';
import { FileContentStore } from '../../src/store';
import { createWorkspaceTools } from '../../src/tools/workspace';
import { createTollgateWorker, workerSettingsFromEnvironment, type TollgateWorkerOptions } from '../../src/worker';
import { compiledSource } from '../support/compiled-sources';
import { shareBundle, takeSharedBundle } from '../support/dev-stack';
import { temporalAddress, workflowBundlePath } from '../support/test-environment';
import { createTestTools } from '../support/test-tools';

// Issue 33: a worker embedded through createTollgateWorker skipped `npm run worker`'s start-up checks, and a worker
// without keys counted unsigned decisions without a word. Every path now runs the same checks.

const repository = path.resolve(__dirname, '../..');
const publicKey = generateDecisionKeyPair().publicKey;

describe('createTollgateWorker start-up checks', () => {
  let connection: NativeConnection;
  let client: Connection;
  let folder: string;
  beforeAll(async () => {
    connection = await NativeConnection.connect({ address: temporalAddress() });
    client = await Connection.connect({ address: temporalAddress() });
  });
  afterAll(async () => {
    await connection.close();
    await client.close();
  });
  beforeEach(() => {
    folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-startup-')));
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  const start = (options: Partial<TollgateWorkerOptions>) =>
    createTollgateWorker({
      connection,
      taskQueue: `startup-${randomUUID()}`,
      tools: createTestTools().tools,
      model: { baseURL: 'http://127.0.0.1:1/v1', apiKey: 'tollgate-scripted', model: 'tollgate-scripted' },
      workflowBundle: { codePath: workflowBundlePath() },
      store: new FileContentStore(path.join(folder, 'store')),
      ...options,
    });

  /** Creates the worker, then runs it and stops it at once: it starts, and lets go of the connection. */
  const starts = async (options: Partial<TollgateWorkerOptions>) => {
    const worker = await start(options);
    await worker.runUntil(Promise.resolve());
  };

  it('refuses a worker without decision keys unless the operator accepts unsigned decisions explicitly', async () => {
    await expect(start({ policy: {} })).rejects.toThrow(
      /^Tollgate worker: it has no decision public key .* so it would count unsigned decisions/,
    );
    // Explicitly, in code or by environment (read by the binaries' helper, never by createTollgateWorker itself); or
    // with the gateway's key.
    await starts({ policy: {}, acceptUnsignedDecisions: true });
    await starts({ policy: { decisions: { trustedKeys: { gateway: publicKey } } } });
    const fromEnvironment = workerSettingsFromEnvironment({ TOLLGATE_ACCEPT_UNSIGNED_DECISIONS: 'true' });
    await starts({ policy: {}, acceptUnsignedDecisions: fromEnvironment.acceptUnsignedDecisions });
  });

  it('registers the search attributes on a bare namespace, as npm run worker does, so turns start there', async () => {
    const namespace = `bare-${randomUUID().slice(0, 8)}`;
    await client.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const taskQueue = `startup-${randomUUID()}`;
    await starts({ namespace, taskQueue, acceptUnsignedDecisions: true });
    const { customAttributes } = await client.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(customAttributes ?? {})).toEqual(
      expect.arrayContaining([
        'TollgatePendingApprovals',
        'TollgateWaitingTools',
        'TollgateApprovers',
        'TollgateRequester',
      ]),
    );
    const tollgate = new TollgateClient(new Client({ connection: client, namespace }), taskQueue);
    const handle = await tollgate.startTurn({ messages: [{ role: 'user', content: 'hello' }] });
    await handle.terminate('test done');
  });

  it('refuses a namespace that does not exist with the message npm run worker prints', async () => {
    const failure = await start({ namespace: 'no-such-namespace', acceptUnsignedDecisions: true }).catch(
      (error: unknown) => error,
    );
    expect(isTemporalPreflightError(failure)).toBe(true);
    expect((failure as Error).message).toContain('temporal operator namespace create --namespace no-such-namespace');
  });

  it('refuses a folder content store inside or above the workspace the tools read', async () => {
    const workspace = path.join(folder, 'repository');
    fs.mkdirSync(workspace);
    const tools = createWorkspaceTools({ root: workspace, sandbox: 'auto', env: { home: path.join(folder, 'home') } });
    await expect(
      start({
        tools,
        acceptUnsignedDecisions: true,
        store: new FileContentStore(path.join(workspace, '.tollgate/store')),
      }),
    ).rejects.toThrow(
      `the store given to createTollgateWorker (${workspace}/.tollgate/store) is inside the tools' workspace (${workspace})`,
    );
    await expect(start({ tools, acceptUnsignedDecisions: true, store: new FileContentStore(folder) })).rejects.toThrow(
      `(${folder}) holds the tools' workspace (${workspace})`,
    );
    await starts({ tools, acceptUnsignedDecisions: true, store: new FileContentStore(path.join(folder, 'store')) });
  });

  it('refuses an unsandboxed bash in a worker that counts unsigned decisions', async () => {
    const tools = createWorkspaceTools({
      root: path.join(folder, 'workspace'),
      sandbox: 'none',
      env: { home: path.join(folder, 'home') },
    });
    await expect(start({ tools, acceptUnsignedDecisions: true })).rejects.toThrow(
      /^Tollgate worker: bash runs unsandboxed .* in a worker that counts unsigned decisions: an approved command could signal Temporal/,
    );
    await starts({ tools, policy: { decisions: { trustedKeys: { gateway: publicKey } } } });
  });
});

describe('npm run worker', () => {
  // One state folder for the starts, as on a machine that restarts its worker: the first start that gets as far as
  // the workflow bundle keeps it there (or finds the one an earlier start of this test run made).
  let state: string;
  beforeAll(() => {
    state = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-startup-worker-'));
    takeSharedBundle(state, 'compiled');
  });
  afterAll(() => fs.rmSync(state, { recursive: true, force: true }));

  /** Runs the entry point until it prints its tool line (then stops it) or exits. */
  async function runWorker(environment: Record<string, string>): Promise<{ code: number | null; output: string }> {
    // `npm run worker`'s entry point, compiled for the run's child processes (test/support/compiled-sources.ts): the
    // same code without tsx's start-up (test/dev/dev-runner.test.ts starts `npm run dev` through tsx).
    const child = spawn(process.execPath, [compiledSource('src/worker.ts')], {
      cwd: repository,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TEMPORAL_CONFIG_FILE: path.join(repository, '.tollgate', 'no-temporal-config.toml'),
        TEMPORAL_ADDRESS: temporalAddress(),
        TOLLGATE_TASK_QUEUE: `startup-${randomUUID()}`,
        OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        TOLLGATE_STATE_DIR: state,
        TOLLGATE_WORKSPACE: path.join(state, 'workspace'),
        TOLLGATE_TOOL_SANDBOX: 'auto',
        ...environment,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Tools: ')) child.kill('SIGTERM');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    shareBundle(state, 'compiled');
    return { code, output };
  }

  it('stops without decision keys, naming the opt-out, and says which configuration runs when it starts', async () => {
    const refused = await runWorker({});
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('so it would count unsigned decisions');
    expect(refused.output).toContain('TOLLGATE_ACCEPT_UNSIGNED_DECISIONS=true');

    const keys = path.join(os.tmpdir(), `tollgate-startup-keys-${randomUUID()}`);
    fs.writeFileSync(keys, `gateway=${publicKey}\n`);
    try {
      const signed = await runWorker({ TOLLGATE_DECISION_PUBLIC_KEYS_FILE: keys });
      expect(signed.output).toContain('Decisions: signed: only decisions signed by key "gateway" count.');
    } finally {
      fs.rmSync(keys, { force: true });
    }
  });

  it("takes its tools' folder from TOLLGATE_WORKSPACE, and refuses a content store inside it", async () => {
    const project = path.join(state, 'project');
    const refused = await runWorker({
      TOLLGATE_ACCEPT_UNSIGNED_DECISIONS: 'true',
      TOLLGATE_WORKSPACE: project,
      TOLLGATE_STORE_DIR: path.join(project, 'store'),
    });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(
      `TOLLGATE_STORE_DIR (${path.join(project, 'store')}) is inside the tools' workspace (${fs.realpathSync(project)})`,
    );
    expect(refused.output).not.toContain('Tools: ');
  });

  it('starts unsigned only by the explicit opt-out, and says so', async () => {
    const unsigned = await runWorker({ TOLLGATE_ACCEPT_UNSIGNED_DECISIONS: 'true' });
    // Where the tools work, before the line that ends the start (the test stops the worker there).
    expect(unsigned.output).toContain(
      `Workspace: ${fs.realpathSync(path.join(state, 'workspace'))} (TOLLGATE_WORKSPACE).`,
    );
    // A restart with the same code takes the bundle the earlier start kept, instead of bundling for seconds again.
    expect(unsigned.output).toContain(
      `Workflow code unchanged: using the bundle in ${path.join(state, 'workflow-bundles')}`,
    );
    expect(unsigned.output).toContain(
      'Decisions: UNSIGNED decisions count (TOLLGATE_ACCEPT_UNSIGNED_DECISIONS=true): anyone who can signal this ' +
        'Temporal namespace can approve any waiting call.',
    );
  });
});
