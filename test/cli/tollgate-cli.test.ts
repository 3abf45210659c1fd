import { requesterSearchAttribute } from '../../src/workflows/definitions';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { findFreePort } from '../../src/dev/ports';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { uniqueMarker, waitFor, waitForPending } from '../support/test-environment';
import { useTurnEnvironment } from '../support/turn-gateway-fixture';
import { cliEnvironment, cliPath, runCli, type CliRun } from '../support/run-cli';

const execFileAsync = promisify(execFile);
const stack = useTurnEnvironment();

function cliUserEnvironment(): NodeJS.ProcessEnv {
  return cliEnvironment(stack.environment, 'tollgate-cli-test-state', { USER: 'cli-user' });
}

async function tollgate(...args: string[]): Promise<CliRun> {
  return runCli(cliUserEnvironment(), ...args);
}

describe('tollgate CLI', () => {
  it('starts a turn, lists its pending approval, and approves it by bare approvalId', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'cli.txt' } }] },
      { text: 'CLI done.' },
    );
    const started = await tollgate('run', `${marker} delete cli.txt`, '--detach');
    expect(started.code).toBe(0);
    const workflowId = /Started turn (\S+)/.exec(started.stdout)?.[1];
    expect(workflowId).toBeDefined();
    const handle = stack.environment.tollgate.turn(workflowId!);
    const [approval] = await waitForPending(handle, 1);
    // The one who ran it asks: the Temporal UI can list their turns.
    const { typedSearchAttributes } = await handle.describe();
    expect(typedSearchAttributes.get(requesterSearchAttribute)).toBe('cli-user');

    const listed = await tollgate('pending', '--workflow-id', workflowId!);
    expect(listed.stdout).toContain('deleteFile');
    expect(listed.stdout).toContain(approval!.approvalId);
    expect(listed.stdout).toContain(`tollgate approve ${approval!.approvalId}`);

    const approved = await tollgate('approve', approval!.approvalId, '--reason', 'looks fine');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/deleteFile approved by cli-user/);
    const result = await handle.result();
    expect(result.audit[0]).toMatchObject({ approver: 'cli-user', reason: 'looks fine', via: 'update' });
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);

    const again = await tollgate('deny', approval!.approvalId);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^tollgate: /);
  });

  it('follows a turn with `run`, showing the pending approval, until a deny from another terminal ends it', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deploy', arguments: { service: 'web' } }] },
      { text: 'Not deployed.' },
    );
    const child = spawn(process.execPath, [cliPath(), 'run', `${marker} deploy web`], { env: cliUserEnvironment() });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    const approvalId = await waitFor(
      async () => /approvalId (\S+)/.exec(output)?.[1],
      (id) => id !== undefined,
    );
    expect(output).toContain('⏸ deploy {"service":"web"}');
    const denied = await tollgate('deny', approvalId!, '--reason', 'freeze week');
    expect(denied.stdout).toMatch(/deploy denied/);

    expect(await exited).toBe(0);
    expect(output).toContain('✗ deploy: denied: freeze week');
    expect(output).toContain('assistant: Not deployed.');
    expect(output).toMatch(/Turn completed after 2 steps/);
  });

  it('starts a turn whose model steps are local activities with --model-steps local, and refuses other modes', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(marker, { text: 'hello from a local step' });
    const started = await tollgate('run', `${marker} hi`, '--model-steps', 'local', '--detach');
    expect(started.code).toBe(0);
    const handle = stack.environment.tollgate.turn(/Started turn (\S+)/.exec(started.stdout)![1]!);
    expect((await handle.result()).text).toBe('hello from a local step');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);
    expect(events.map((event) => event.markerRecordedEventAttributes?.markerName)).toContain('core_local_activity');

    const refused = await tollgate('run', 'hi', '--model-steps', 'remote');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--model-steps takes activity or local/);
  });

  it('shows each decision in `follow` as it arrives, by tool name, and `status` reads as text (--json for the raw state)', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'a.txt' } },
          { id: `${marker}-2`, name: 'deploy', arguments: { service: 'api' } },
        ],
      },
      { text: 'Half done.' },
    );
    const started = await runCli({ ...cliUserEnvironment(), npm_command: 'exec' }, 'run', `${marker} two`, '--detach');
    const workflowId = /Started turn (\S+)/.exec(started.stdout)![1]!;
    expect(started.stdout).toContain(`npx tollgate follow ${workflowId}`);
    const [first, second] = await waitForPending(stack.environment.tollgate.turn(workflowId), 2);

    const status = await tollgate('status', workflowId);
    expect(status.stdout).toMatch(new RegExp(`^Turn ${workflowId}: awaiting-approval, 1 step, 2 waiting for approval`));
    expect(status.stdout).toContain('⏸ deploy {"service":"api"}');
    const raw = JSON.parse((await tollgate('status', workflowId, '--json')).stdout) as { pending: unknown[] };
    expect(raw.pending).toHaveLength(2);

    // Ctrl-C leaves the turn running and says how to pick it up again.
    const interrupted = spawn(process.execPath, [cliPath(), 'follow', workflowId], { env: cliUserEnvironment() });
    let interruptedOutput = '';
    interrupted.stdout.on('data', (chunk: Buffer) => (interruptedOutput += chunk.toString()));
    const interruptedExit = new Promise<number | null>((resolve) => interrupted.once('exit', resolve));
    await waitFor(
      async () => interruptedOutput,
      (text) => text.includes('⏸ deploy'),
    );
    interrupted.kill('SIGINT');
    expect(await interruptedExit).toBe(130);
    expect(interruptedOutput).toContain(`Follow it again: tollgate follow ${workflowId}`);

    // `follow` picks the turn up; the first decision shows before the step's last one arrives.
    const child = spawn(process.execPath, [cliPath(), 'follow', workflowId], { env: cliUserEnvironment() });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await waitFor(
      async () => output,
      (text) => text.includes('⏸ deploy'),
    );
    const byTool = Object.fromEntries([first!, second!].map((approval) => [approval.toolName, approval.approvalId]));
    await tollgate('approve', byTool.deleteFile!);
    await waitFor(
      async () => output,
      (text) => text.includes('⇒ deleteFile approved by cli-user'),
    );
    expect(output).not.toContain('⇒ deploy');
    expect(output).not.toContain(`approved ${byTool.deleteFile}`);
    await tollgate('deny', byTool.deploy!, '--reason', 'not today');
    expect(await exited).toBe(0);
    expect(output).toContain('⇒ deploy denied by cli-user (not today)');
    expect(output).toMatch(/Turn completed after 2 steps/);
  });

  it('names the address and the fix when Temporal or the gateway is not there, without a stack trace', async () => {
    const port = await findFreePort('127.0.0.1');
    const startedAt = Date.now();
    const noTemporal = await runCli({ ...cliUserEnvironment(), TEMPORAL_ADDRESS: `127.0.0.1:${port}` }, 'status', 'x');
    // `status` retries a few seconds (a restart in progress), saying so, then gives up clearly. How long it tried is
    // read from its own message, not from the clock around it: starting the CLI on a busy machine takes seconds too.
    expect(Date.now() - startedAt).toBeGreaterThan(3_000);
    const triedFor = Number(/Tried for (\d+) s\.$/.exec(noTemporal.stderr.trim())?.[1]);
    expect(triedFor).toBeGreaterThanOrEqual(3);
    expect(triedFor).toBeLessThanOrEqual(10);
    expect(noTemporal.code).toBe(1);
    const [notice, ...rest] = noTemporal.stderr.trim().split('\n');
    expect(notice).toBe(
      `Temporal unavailable at 127.0.0.1:${port}, retrying… (nothing listens on 127.0.0.1:${port}; is \`npm run dev\` still running?)`,
    );
    expect(rest.join('\n')).toMatch(
      new RegExp(`^tollgate: Temporal unavailable at 127\\.0\\.0\\.1:${port} .*npm run dev.*Tried for \\d+ s\\.$`),
    );
    expect(noTemporal.stdout).toBe('');
    expect(noTemporal.stderr).not.toMatch(/\n\s+at /);

    for (const args of [['pending'], ['approve', 'some-id']]) {
      const noGateway = await tollgate(...args, '--gateway', `http://127.0.0.1:${port}`, '--token', 't');
      expect(noGateway.code).toBe(1);
      expect(noGateway.stderr).toMatch(
        new RegExp(`cannot reach the approval gateway at http://127\\.0\\.0\\.1:${port}`),
      );
      expect(noGateway.stderr).toContain('TOLLGATE_GATEWAY_URL');
      expect(noGateway.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('says clearly when an approvalId or a turn id is unknown', async () => {
    const result = await tollgate('approve', 'not-an-id');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown approvalId "not-an-id"/);
    for (const command of ['status', 'follow']) {
      const unknown = await tollgate(command, 'no-such-turn');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^tollgate: No turn "no-such-turn"/);
    }
  });

  it('lets a bot in another language decide with `temporal workflow signal`', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'go.txt' } }] },
      { text: 'ok' },
    );
    const handle = await stack.environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete go.txt` }],
    });
    const [approval] = await waitForPending(handle, 1);
    const temporal = await resolveTemporalCli();
    await execFileAsync(temporal.path, [
      'workflow',
      'signal',
      '--address',
      stack.environment.address,
      '--workflow-id',
      handle.workflowId,
      '--name',
      'toolApprovalResponse',
      '--input',
      JSON.stringify({
        approvalId: approval!.approvalId,
        approved: false,
        reason: 'from the temporal CLI',
        approver: 'go-bot',
      }),
    ]);
    const result = await handle.result();
    expect(result.audit[0]).toMatchObject({ decision: 'denied', approver: 'go-bot', via: 'signal' });
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
  });
});
