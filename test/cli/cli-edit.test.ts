import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { uniqueMarker, waitForPending } from '../support/test-environment';
import { useTurnEnvironment } from '../support/turn-gateway-fixture';
import { cliEnvironment, runCli, type CliRun } from '../support/run-cli';
import { temporaryFolder } from '../support/temporary-folder';

// The operator lets cli-user (the $USER the CLI decides as) approve deleteFile with changed arguments.
const stack = useTurnEnvironment({ policy: { tools: { deleteFile: { editors: ['cli-user'] } } } });

async function tollgate(...args: string[]): Promise<CliRun> {
  return runCli(cliEnvironment(stack.environment, 'tollgate-cli-edit-test-state', { USER: 'cli-user' }), ...args);
}

async function waitingTurn() {
  const marker = uniqueMarker();
  stack.environment.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'notes.txt' } }] },
    { text: 'done' },
  );
  const handle = await stack.environment.tollgate.startTurn({
    messages: [{ role: 'user', content: `${marker} tidy` }],
  });
  const [approval] = await waitForPending(handle, 1);
  return { marker, handle, approvalId: approval!.approvalId };
}

describe('tollgate approve --input', () => {
  it('approves with edited arguments, the tool runs with them, and the audit keeps both', async () => {
    const { marker, handle, approvalId } = await waitingTurn();
    const approved = await tollgate('approve', approvalId, '--input', '{"path":"drafts/notes.txt"}');
    expect(approved).toMatchObject({ code: 0 });
    expect(approved.stdout).toMatch(/deleteFile approved by cli-user/);
    expect(approved.stdout).toContain('It runs with the edited input {"path":"drafts/notes.txt"}');
    const result = await handle.result();
    expect(result.audit[0]).toMatchObject({
      input: { path: 'notes.txt' },
      editedInput: { path: 'drafts/notes.txt' },
      editedBy: 'cli-user',
    });
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`).map((run) => run.input)).toEqual([
      { path: 'drafts/notes.txt' },
    ]);
  });

  it('reads the edited arguments from a file, and refuses input the tool does not take or that is not JSON', async () => {
    const { marker, handle, approvalId } = await waitingTurn();
    const wrong = await tollgate('approve', approvalId, '--input', '{"path":7}');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^tollgate: .*does not fit tool "deleteFile"/);
    const notJson = await tollgate('approve', approvalId, '--input', '{path:');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--input is not JSON/);
    const onDeny = await tollgate('deny', approvalId, '--input', '{}');
    expect(onDeny.stderr).toMatch(/go with approve only/);
    expect(await stack.environment.tollgate.pending({ workflowId: handle.workflowId })).toHaveLength(1);
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`)).toEqual([]);

    const file = path.join(temporaryFolder('tollgate-edit-'), 'input.json');
    writeFileSync(file, JSON.stringify({ path: 'from-file.txt' }));
    expect((await tollgate('approve', approvalId, '--input-file', file)).code).toBe(0);
    await handle.result();
    expect(stack.runs.filter((run) => run.toolCallId === `${marker}-1`).map((run) => run.input)).toEqual([
      { path: 'from-file.txt' },
    ]);
  });

  it('refuses an edit by someone the policy does not name as an editor', async () => {
    const { handle, approvalId } = await waitingTurn();
    const refused = await tollgate('approve', approvalId, '--approver', 'mallory', '--input', '{"path":"x"}');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/"mallory" may not change the input/);
    expect(await stack.environment.tollgate.pending({ workflowId: handle.workflowId })).toHaveLength(1);
  });
});
