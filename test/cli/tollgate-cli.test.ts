import os from 'node:os';
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  type TestEnvironment,
  waitForPending,
} from '../support/test-environment';
import { createTestTools } from '../support/test-tools';

const execFileAsync = promisify(execFile);
const cliPath = path.resolve(__dirname, '../../bin/tollgate.js');
const { tools, runs } = createTestTools();
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools });
});
afterAll(async () => {
  await environment?.close();
});

function cliEnvironment(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: environment.address,
    TOLLGATE_TASK_QUEUE: environment.taskQueue,
    USER: 'cli-user',
    // Not the repository's own .tollgate, where a running `npm run dev` leaves its gateway for the CLI.
    TOLLGATE_STATE_DIR: path.join(os.tmpdir(), 'tollgate-cli-test-state'),
    TOLLGATE_GATEWAY_URL: '',
  };
}

async function tollgate(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [cliPath, ...args], { env: cliEnvironment() });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

describe('tollgate CLI', () => {
  it('starts a turn, lists its pending approval, and approves it by bare approvalId', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'cli.txt' } }] },
      { text: 'CLI done.' },
    );
    const started = await tollgate('run', `${marker} delete cli.txt`, '--detach');
    expect(started.code).toBe(0);
    const workflowId = /Started turn (\S+)/.exec(started.stdout)?.[1];
    expect(workflowId).toBeDefined();
    const handle = environment.tollgate.turn(workflowId!);
    const [approval] = await waitForPending(handle, 1);

    const listed = await tollgate('pending', '--workflow-id', workflowId!);
    expect(listed.stdout).toContain('deleteFile');
    expect(listed.stdout).toContain(approval!.approvalId);
    expect(listed.stdout).toContain(`tollgate approve ${approval!.approvalId}`);

    const approved = await tollgate('approve', approval!.approvalId, '--reason', 'looks fine');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/deleteFile approved by cli-user/);
    const result = await handle.result();
    expect(result.audit[0]).toMatchObject({ approver: 'cli-user', reason: 'looks fine', via: 'update' });
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);

    const again = await tollgate('deny', approval!.approvalId);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^tollgate: /);
  });

  it('follows a turn with `run`, showing the pending approval, until a deny from another terminal ends it', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deploy', arguments: { service: 'web' } }] },
      { text: 'Not deployed.' },
    );
    const child = spawn(process.execPath, [cliPath, 'run', `${marker} deploy web`], { env: cliEnvironment() });
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
    environment.model.scriptFor(marker, { text: 'hello from a local step' });
    const started = await tollgate('run', `${marker} hi`, '--model-steps', 'local', '--detach');
    expect(started.code).toBe(0);
    const handle = environment.tollgate.turn(/Started turn (\S+)/.exec(started.stdout)![1]!);
    expect((await handle.result()).text).toBe('hello from a local step');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);
    expect(events.map((event) => event.markerRecordedEventAttributes?.markerName)).toContain('core_local_activity');

    const refused = await tollgate('run', 'hi', '--model-steps', 'remote');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--model-steps takes activity or local/);
  });

  it('says clearly when an approvalId is unknown', async () => {
    const result = await tollgate('approve', 'not-an-id');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown approvalId "not-an-id"/);
  });

  it('lets a bot in another language decide with `temporal workflow signal`', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'go.txt' } }] },
      { text: 'ok' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete go.txt` }],
    });
    const [approval] = await waitForPending(handle, 1);
    const temporal = await resolveTemporalCli();
    await execFileAsync(temporal.path, [
      'workflow',
      'signal',
      '--address',
      environment.address,
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
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);
  });
});
