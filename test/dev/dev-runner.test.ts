import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporalSettingsFromEnvironment, TollgateClient } from '../../src/client';
import type { AgentTurnResult } from '../../src/protocol';
import { freeDevPorts, startDev, stopDev, type DevPorts, type DevProcess } from '../support/dev-stack';
import { waitForPending } from '../support/test-environment';
import { temporaryFolder } from '../support/temporary-folder';

const execFileAsync = promisify(execFile);
const repository = path.resolve(__dirname, '../..');
const folder = temporaryFolder('tollgate-dev-');
const workspace = path.join(folder, 'workspace');
let ports: DevPorts;
// Started through tsx, as `npm run dev` starts it in a checkout (the other dev-stack tests run the compiled code), and
// bundles on its first start, as a new user's does (the others start from the run's shared bundle).
const dev = () => ({
  stateFolder: path.join(folder, 'state'),
  workspace,
  ports,
  bundle: 'own' as const,
  entry: 'tsx' as const,
});

describe('npm run dev', () => {
  let running: DevProcess | undefined;
  let tollgate: TollgateClient | undefined;

  beforeAll(async () => {
    ports = await freeDevPorts();
  });
  afterAll(async () => {
    await tollgate?.close();
    if (running) await stopDev(running);
  });

  it('serves the demo: an approved write happens, a denied command does not, and a wait survives a restart', async () => {
    running = await startDev(dev());
    expect(running.output()).toContain(`TEMPORAL_ADDRESS=127.0.0.1:${ports.temporal} npx tollgate run`);
    expect(running.output()).toContain(`http://127.0.0.1:${ports.ui}`);
    process.env.TEMPORAL_ADDRESS = `127.0.0.1:${ports.temporal}`;
    tollgate = await TollgateClient.connect(temporalSettingsFromEnvironment());

    const first = await tollgate.startTurn({
      messages: [{ role: 'user', content: 'write hello to notes.txt and run rm -rf /tmp/nothing-here' }],
    });
    const pending = await waitForPending(first, 2);
    const byTool = Object.fromEntries(pending.map((approval) => [approval.toolName, approval.approvalId]));
    // The dev worker trusts only decisions its gateway signed: raw Temporal access approves nothing.
    await expect(tollgate.decide(byTool.writeFile!, { approved: true, approver: 'demo' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    // A person decides through the gateway, with the token npm run dev made.
    const token = readFileSync(path.join(folder, 'state', 'gateway-token'), 'utf8').trim();
    const cli = (...args: string[]) =>
      execFileAsync(process.execPath, [
        path.join(repository, 'bin/tollgate.js'),
        ...args,
        '--gateway',
        `http://127.0.0.1:${ports.gateway}`,
        '--token',
        token,
      ]);
    // As the README's quick start does: no flags, the CLI finds the gateway npm run dev started.
    await execFileAsync(process.execPath, [path.join(repository, 'bin/tollgate.js'), 'approve', byTool.writeFile!], {
      env: { ...process.env, TOLLGATE_STATE_DIR: path.join(folder, 'state'), TOLLGATE_GATEWAY_URL: '' },
    });
    const listed = await execFileAsync(process.execPath, [
      path.join(repository, 'bin/tollgate.js'),
      'pending',
      '--gateway',
      `http://127.0.0.1:${ports.gateway}`,
      '--token',
      token,
    ]);
    expect(listed.stdout).toContain(byTool.bash!);
    const denied = await execFileAsync(process.execPath, [
      path.join(repository, 'bin/tollgate.js'),
      'deny',
      byTool.bash!,
      '--reason',
      'not on my machine',
      '--gateway',
      `http://127.0.0.1:${ports.gateway}`,
      '--token',
      token,
    ]);
    expect(denied.stdout).toMatch(/bash denied by /);
    const result: AgentTurnResult = await first.result();
    expect(readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('hello');
    expect(result.text).toMatch(/not on my machine/);

    // A turn waits; the whole dev stack stops and starts again on the same SQLite file.
    const second = await tollgate.startTurn({ messages: [{ role: 'user', content: 'write later to later.txt' }] });
    const [waiting] = await waitForPending(second, 1);
    await tollgate.close();
    tollgate = undefined;
    expect(running.output()).toContain('Bundling the workflow code…');
    await stopDev(running);
    running = await startDev(dev());
    // The code did not change, so the restart runs the bundle the first start kept instead of bundling again.
    expect(running.output()).toMatch(/Workflow code unchanged: using the bundle in .*workflow-bundles/);
    expect(running.output()).not.toContain('Bundling the workflow code…');
    tollgate = await TollgateClient.connect(temporalSettingsFromEnvironment());
    expect((await tollgate.pending({ workflowId: second.workflowId })).map((approval) => approval.approvalId)).toEqual([
      waiting!.approvalId,
    ]);
    await cli('approve', waiting!.approvalId);
    await tollgate.turn(second.workflowId).result();
    expect(existsSync(path.join(workspace, 'later.txt'))).toBe(true);
  }, 150_000);
});
