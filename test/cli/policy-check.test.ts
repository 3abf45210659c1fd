import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uniqueMarker, waitFor, waitForPending } from '../support/test-environment';
import { useTurnEnvironment } from '../support/turn-gateway-fixture';
import { cliEnvironment, runCli, type CliRun } from '../support/run-cli';

// @modelcontextprotocol/server-filesystem over stdio: write_file asks (not read-only), read_text_file does not.
const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tollgate-policy-check-')));
const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-candidates-'));
writeFileSync(path.join(root, 'notes.txt'), 'notes\n');
// A task queue of its own: the replay reads this file's turns only.
const stack = useTurnEnvironment({
  // The MCP project's own server: its readOnlyHint is trusted, so reads run unasked as the replay expects.
  policy: { mcpServers: { fs: { trustReadOnlyHint: true } } },
  mcpServers: {
    fs: {
      command: process.execPath,
      args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), root],
    },
  },
});
// After the environment's own hooks (declared above), which stop the MCP server working in `root`.
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(folder, { recursive: true, force: true });
});

function candidate(name: string, policy: unknown): string {
  const file = path.join(folder, name);
  writeFileSync(file, typeof policy === 'string' ? policy : JSON.stringify(policy));
  return file;
}

async function tollgate(...args: string[]): Promise<CliRun> {
  return runCli(cliEnvironment(stack.environment, 'tollgate-cli-test-state'), ...args);
}

/** Starts a turn whose one model step makes `calls`; resolves with the approvals that wait and the handle. */
async function turnCalling(calls: Array<{ name: string; arguments: unknown }>, asking: number) {
  const marker = uniqueMarker();
  stack.environment.model.scriptFor(
    marker,
    { toolCalls: calls.map((call, index) => ({ id: `${marker}-${index}`, ...call })) },
    { text: 'done' },
  );
  const handle = await stack.environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} go` }],
    requester: 'carol',
  });
  return { handle, pending: await waitForPending(handle, asking) };
}

describe('tollgate policy check', () => {
  beforeAll(async () => {
    // Real turns, real decisions by two people: two writes approved, one denied, one read that never asked.
    const writes = await turnCalling(
      [
        { name: 'fs__write_file', arguments: { path: path.join(root, 'docs-a.md'), content: 'a' } },
        { name: 'fs__write_file', arguments: { path: path.join(root, 'docs-b.md'), content: 'b' } },
        { name: 'fs__write_file', arguments: { path: path.join(root, '.env'), content: 'TOKEN=x' } },
        { name: 'fs__read_text_file', arguments: { path: path.join(root, 'notes.txt') } },
      ],
      3,
    );
    const [first, second, secret] = writes.pending.map((approval) => approval.approvalId);
    await stack.environment.tollgate.decide(first!, { approved: true, approver: 'ana' });
    await stack.environment.tollgate.decide(second!, { approved: true, approver: 'bob' });
    await stack.environment.tollgate.decide(secret!, { approved: false, approver: 'bob', reason: 'not the secrets' });
    const deploys = await turnCalling(
      [
        { name: 'deploy', arguments: { service: 'api' } },
        { name: 'deploy', arguments: { service: 'web' } },
      ],
      2,
    );
    const [api, web] = deploys.pending.map((approval) => approval.approvalId);
    await stack.environment.tollgate.decide(api!, { approved: true, approver: 'ana' });
    await stack.environment.tollgate.decide(web!, { approved: true, approver: 'bob' });
    await Promise.all([writes.handle.result(), deploys.handle.result()]);
  }, 60_000);

  it('fails (exit status 1) a candidate that would have run a call a person denied, and shows what it would save', async () => {
    const file = candidate('write-freely.json', {
      mcpServers: { fs: { tools: { write_file: { needsApproval: false } } } },
    });
    // Visibility lags a little behind the turns' ends.
    const checked = await waitFor(
      () => tollgate('policy', 'check', file, '--since', '1h'),
      (answer) => answer.stdout.includes('in 2 turns'),
    );
    expect(checked.code).toBe(1);
    const { stdout } = checked;
    expect(stdout).toContain(`Replayed ${file} over 5 approvals in 2 turns`);
    expect(stdout).toMatch(
      /Would run without asking, though a person denied them \(1\):\n {2}fs__write_file path: \S+\.env, content: "TOKEN=x": denied by bob \("not the secrets"\) at \S+, turn \S+\n {4}mcpServers\.fs\.tools\.write_file\.needsApproval runs it without asking/,
    );
    expect(stdout).toMatch(
      /Approvals it would save \(2; runs waited \d+ s for them\):\n {2}fs__write_file: 2 approved by ana, bob/,
    );
    expect(stdout).toContain('Would still ask, though always approved:\n  deploy: approved 2 of 2 by ana, bob');
    expect(stdout).toContain('FAIL: the candidate would have run 1 call a person denied.');
  }, 60_000);

  it('passes a candidate that only asks more, naming the calls it would newly ask about', async () => {
    const file = candidate('read-asks.json', {
      mcpServers: { fs: { tools: { read_text_file: { needsApproval: true } } } },
    });
    const checked = await tollgate('policy', 'check', file, '--since', '1h');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('Would newly ask (calls made without asking):\n  fs__read_text_file: 1 call');
    expect(checked.stdout).toContain('Approvals it would save (0; runs waited 0 s for them):\n  none');
    expect(checked.stdout).toContain('OK: the candidate would not have run any call a person denied.');

    const json = await tollgate('policy', 'check', file, '--since', '1h', '--json');
    expect(json.code).toBe(0);
    const replay = JSON.parse(json.stdout);
    expect(replay).toMatchObject({
      turnsRead: 2,
      approvalsRead: 5,
      wouldRunDenied: [],
      newlyAsked: [{ tool: 'fs__read_text_file', calls: 1 }],
      alwaysApprovedStillAsked: [{ tool: 'deploy', approved: 2, people: ['ana', 'bob'] }],
    });
  }, 60_000);

  it('says which decisions its approvers would not have taken, and what the records cannot tell', async () => {
    const file = candidate('only-ana.json', { defaults: { approvers: ['ana'] }, mcpServers: { fs: {} } });
    const checked = await tollgate('policy', 'check', file, '--since', '1h');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/Decisions its rules would not have taken as they were \(3\):/);
    expect(checked.stdout).toContain('bob is not among its approvers (ana): it would have waited for one of them.');
    expect(checked.stdout).toContain('Not known from the records:');
    expect(checked.stdout).toContain("Rules set in a tool's own definition");
  }, 60_000);

  it('refuses a candidate that is not a policy, and a window it cannot read, with exit status 2', async () => {
    const loosening = candidate('not-a-policy.json', { tools: { deploy: { needsApproval: false } } });
    const refused = await tollgate('policy', 'check', loosening);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`tollgate: "${loosening}" is not a valid policy:`);
    const broken = await tollgate('policy', 'check', candidate('broken.json', '{ "tools": '));
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/could not be read as JSON/);
    const window = await tollgate(
      'policy',
      'check',
      loosening.replace('not-a-policy', 'read-asks'),
      '--since',
      'last week',
    );
    expect(window.code).toBe(2);
    expect(window.stderr).toContain(
      '--since takes a duration such as 30d or 12h, or an ISO 8601 time; got "last week".',
    );
    expect((await tollgate('policy', 'apply', loosening)).code).toBe(2);
  }, 60_000);
});
