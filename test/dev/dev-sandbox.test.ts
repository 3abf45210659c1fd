import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TollgateClient } from '../../src/client';
import { temporalSettingsFromEnvironment } from '../../src/client/temporal-settings';
import { generateDecisionKeyPair } from '../../src/gateway/decisions/decision-signing-key';
import { resolveSandbox } from '../../src/tools/workspace';
import { freeDevPorts, spawnDev, stopDev, type DevPorts, type DevProcess } from '../support/dev-stack';
import { waitFor, waitForPending } from '../support/test-environment';

// `npm run dev` runs the worker and the gateway in one process: the gateway's token and signing key are on the
// worker's disk and in its environment. These tests start it as a user would, with secrets exported.

const execFileAsync = promisify(execFile);
const repository = path.resolve(__dirname, '../..');
const sandboxWorks = resolveSandbox('auto', os.tmpdir()).type === 'bubblewrap';
const marker = `marker-${process.pid}-${Date.now()}`;

/** Starts `npm run dev` with a state folder (and workspace in it) and ports of its own, and `environment` on top. */
function startDev(folder: string, ports: DevPorts, environment: Record<string, string>): DevProcess {
  const stateFolder = path.join(folder, 'state');
  return spawnDev({ stateFolder, workspace: path.join(stateFolder, 'workspace'), ports, environment });
}

describe('npm run dev and the secrets that guard approvals', () => {
  let dev: DevProcess | undefined;
  let tollgate: TollgateClient | undefined;
  const folders: string[] = [];
  const newFolder = (prefix: string) => {
    folders.push(mkdtempSync(path.join(os.tmpdir(), prefix)));
    return folders.at(-1)!;
  };

  afterEach(async () => {
    await tollgate?.close();
    tollgate = undefined;
    if (dev) await stopDev(dev);
    dev = undefined;
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it('refuses sandbox "none" before starting anything, naming the gateway files bash could read', async () => {
    const folder = newFolder('tollgate-dev-none-');
    dev = startDev(folder, await freeDevPorts(), { TOLLGATE_TOOL_SANDBOX: 'none' });
    expect(await dev.exited).toBe(1);
    expect(dev.output()).toContain('Workspace tools: sandbox "none" refused: bash would run unsandboxed');
    expect(dev.output()).toContain("the worker's TOLLGATE_DECISION_SIGNING_KEY");
    expect(dev.output()).toContain(`the gateway's files ${path.join(folder, 'state', 'gateway')}`);
    expect(dev.output()).not.toContain('Starting the Temporal dev server');
  }, 60_000);

  it('with a signing key already exported, trusts only decisions its gateway signed, and bash reads no secret', async () => {
    const folder = newFolder('tollgate-dev-key-');
    const ports = await freeDevPorts();
    const signingKey = generateDecisionKeyPair().privateKeyPem;
    dev = startDev(folder, ports, {
      TOLLGATE_DECISION_SIGNING_KEY: signingKey,
      TOLLGATE_APPROVAL_SECRET: `${marker}-approval-secret`,
    });
    await waitFor(
      async () => dev!.output(),
      (text) => text.includes('Tollgate is running.') || dev!.process.exitCode !== null,
      60_000,
    );
    expect(dev.output()).toContain('Tollgate is running.');
    if (sandboxWorks) expect(dev.output()).toMatch(/Tools +bash runs in a bubblewrap sandbox/);
    else expect(dev.output()).toMatch(/Tools +bash is left out: sandbox "auto" cannot use bubblewrap/);

    tollgate = await TollgateClient.connect({
      ...temporalSettingsFromEnvironment({}),
      connectionOptions: { address: `127.0.0.1:${ports.temporal}` },
    });
    const state = path.join(folder, 'state');
    const token = readFileSync(path.join(state, 'gateway-token'), 'utf8').trim();
    // What an approved command would reach for: the worker's environment, every process's, the gateway's files.
    const probe =
      'run (cat /proc/$PPID/environ /proc/*/environ; env; cat ../gateway-token ../gateway/access.json ' +
      `${state}/gateway-token ${state}/gateway/access.json; echo probe-finished) > probe.txt 2>&1`;
    const turn = await tollgate.startTurn({
      messages: [{ role: 'user', content: sandboxWorks ? probe : 'write x to x.txt' }],
    });
    const [approval] = await waitForPending(turn, 1);

    // Raw Temporal access approves nothing: the dev worker requires the exported key's signature.
    await expect(tollgate.decide(approval!.approvalId, { approved: true, approver: 'demo' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    // The gateway signs with the exported key, and the worker takes that.
    await execFileAsync(process.execPath, [
      path.join(repository, 'bin/tollgate.js'),
      'approve',
      approval!.approvalId,
      '--gateway',
      `http://127.0.0.1:${ports.gateway}`,
      '--token',
      token,
    ]);
    await turn.result();
    if (!sandboxWorks) {
      expect(existsSync(path.join(state, 'workspace', 'x.txt'))).toBe(true);
      return;
    }
    const seen = readFileSync(path.join(state, 'workspace', 'probe.txt'), 'utf8');
    expect(seen).toContain('probe-finished');
    expect(seen).not.toContain(marker);
    expect(seen).not.toContain(token);
    expect(seen).not.toContain('PRIVATE KEY');
    expect(seen).not.toContain('sha256');
  }, 150_000);
});
