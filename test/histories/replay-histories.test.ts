import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { workflowBundlePath } from '../support/test-environment';
import { routeWorkerLogsToFile } from '../support/test-logs';

// Executions wait for approvals while code changes. These histories were captured from earlier
// versions (test/histories/capture-histories.ts); replaying them on today's code fails on any
// change that would break such an execution. Guard intended changes with patched().
// A file is named after its workflow id (`/` written as `%2F`): approvalIds, a conversation's
// turn ids, and so the commands and decisions, depend on it.
const histories = readdirSync(__dirname)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({
    workflowId: decodeURIComponent(file.replace(/\.json$/, '')),
    history: JSON.parse(readFileSync(path.join(__dirname, file), 'utf8')),
  }));

describe('committed workflow histories', () => {
  it('include the v1 turns and conversation that ran before the turn-v2 patch', () => {
    expect(histories.map((entry) => entry.workflowId)).toEqual(
      expect.arrayContaining([
        'agent-turn-waiting',
        'agent-turn-approved',
        'agent-turn-denied',
        'agent-turn-expired',
        'agent-turn-policy',
        'conversation-continued',
      ]),
    );
  });

  it('include a v2 history for every path a waiting turn can be on', () => {
    expect(histories.map((entry) => entry.workflowId)).toEqual(
      expect.arrayContaining([
        'v2-waiting',
        'v2-approved',
        'v2-denied',
        'v2-expired',
        'v2-expired-fail',
        'v2-policy-denied',
        'v2-auto-approve',
        'v2-notices',
        'v2-quorum',
        'v2-signed',
        'v2-halted',
        'v2-resumed',
        'v2-provider',
        'v2-client-output',
        'v2-supersede',
        'v2-supersede/turn-1',
        'v2-continued',
        'v2-continued/turn-2',
      ]),
    );
  });

  it('replay on the current workflow code without a determinism error', async () => {
    routeWorkerLogsToFile();
    const results = Worker.runReplayHistories({ workflowBundle: { codePath: workflowBundlePath() } }, histories);
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of results) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(histories.length);
  });
});
