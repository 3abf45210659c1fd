import { uniqueMarker, waitFor, waitForPending } from '../support/test-environment';
import { auditSince, testTokens } from '../gateway/gateway-fixture';
import { useTurnGateway } from '../support/turn-gateway-fixture';
import { cliEnvironment, runCli, type CliRun } from '../support/run-cli';

const stack = useTurnGateway();

async function tollgate(...args: string[]): Promise<CliRun> {
  return tollgateWith({}, ...args);
}

async function tollgateWith(overrides: Record<string, string>, ...args: string[]): Promise<CliRun> {
  const env = cliEnvironment(stack.environment, 'tollgate-cli-grants-state', {
    TOLLGATE_GATEWAY_URL: stack.gateway.url,
    TOLLGATE_GATEWAY_TOKEN: testTokens.ana,
    ...overrides,
  });
  return runCli(env, ...args);
}

describe('tollgate CLI and standing grants', () => {
  it('approves and allows, lists the grant with its uses, and revokes it', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'one' } }] },
      { toolCalls: [{ id: `${marker}-2`, name: 'deleteFile', arguments: { path: 'two' } }] },
      { text: 'done' },
    );
    const handle = await stack.environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} clean` }],
      requester: 'bob',
    });
    const [approval] = await waitForPending(handle, 1);
    const approved = await tollgate('approve', approval!.approvalId, '--allow-for', '1h', '--uses', '10');
    expect(approved).toMatchObject({ code: 0 });
    expect(approved.stdout).toMatch(/deleteFile approved by ana/);
    expect(approved.stdout).toMatch(
      /Allowed from now on: grant-[0-9a-f]+ · deleteFile for conversation turn-\S+ · 0\/10 uses · until \S+ · by ana · in force/,
    );
    const result = await handle.result();
    expect(result.audit.map((entry) => entry.via)).toEqual(['update', 'grant']);
    expect(stack.runs.filter((run) => run.toolCallId.startsWith(marker))).toHaveLength(2);

    const grantId = /grant-[0-9a-f]+/.exec(approved.stdout)?.[0] as string;
    const listed = await waitFor(
      () => tollgate('grants'),
      (answer) => answer.stdout.includes('1/10 uses'),
    );
    expect(listed.stdout).toContain(grantId);
    const revoked = await tollgate('grants', 'revoke', grantId);
    expect(revoked.stdout).toBe(`${grantId} revoked by ana: it covers nothing from now on.\n`);
    expect((await tollgate('grants')).stdout).toMatch(new RegExp(`${grantId} .* · revoked by ana`));
  });

  it('says what is wrong with an allow option, and a refused grant, without a stack trace', async () => {
    const bounded = await tollgate('approve', 'some-approval', '--allow-scope', 'everyone');
    expect(bounded.code).not.toBe(0);
    expect(bounded.stderr).toMatch(/a grant is bounded: give --allow-for, --uses, or both/);
    const denied = await tollgate('deny', 'some-approval', '--uses', '3');
    expect(denied.stderr).toMatch(/--allow-for, --uses and --allow-scope go with approve/);
    const unknown = await tollgate('grants', 'revoke', 'grant-00000000');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/No grant "grant-00000000"/);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
  });

  it('keeps decisions and revocations the gateway refused to the CLI in GET /v1/audit, with who and why', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'kept' } }] },
      { text: 'done' },
    );
    const handle = await stack.environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} clean` }],
    });
    const [approval] = await waitForPending(handle, 1);
    const approvalId = approval!.approvalId;
    const since = new Date();
    const robot = await tollgateWith({ TOLLGATE_GATEWAY_TOKEN: testTokens.robot }, 'approve', approvalId);
    expect(robot.code).not.toBe(0);
    expect(robot.stderr).toMatch(/approvals:decide/);
    const stranger = await tollgateWith({ TOLLGATE_GATEWAY_TOKEN: 'not-a-token-of-this-gateway' }, 'deny', approvalId);
    expect(stranger.code).not.toBe(0);
    const revoke = await tollgateWith(
      { TOLLGATE_GATEWAY_TOKEN: testTokens.robot },
      'grants',
      'revoke',
      'grant-0123abcd',
    );
    expect(revoke.code).not.toBe(0);

    const attempts = await auditSince(stack.gateway, since, (found) => found.length >= 3);
    expect(attempts).toEqual([
      expect.objectContaining({
        channel: 'rest',
        approver: 'robot',
        identity: 'token:robot',
        approvalId,
        approved: true,
        outcome: 'refused',
        refusal: { code: 'forbidden', detail: 'This token lacks the scope approvals:decide.' },
      }),
      expect.objectContaining({
        channel: 'rest',
        approver: '(unauthenticated)',
        approvalId,
        outcome: 'refused',
        refusal: expect.objectContaining({ code: 'unauthorized' }),
      }),
      expect.objectContaining({
        approver: 'robot',
        approvalId: 'grant:grant-0123abcd',
        grant: { action: 'revoke', grantId: 'grant-0123abcd' },
        refusal: expect.objectContaining({ code: 'forbidden' }),
      }),
    ]);
    expect(JSON.stringify(attempts)).not.toContain('not-a-token-of-this-gateway');
    expect(await stack.environment.tollgate.pending({ workflowId: handle.workflowId })).toHaveLength(1);
    await handle.cancel();
  });
});
