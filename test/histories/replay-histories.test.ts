import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { workflowBundlePath } from '../support/test-environment';

// Executions wait for approvals while code changes. These histories were captured from earlier
// versions (test/histories/capture-histories.ts); replaying them on today's code fails on any
// change that would break such an execution. Guard intended changes with patched().
// A file is named after its workflow id: approvalIds, and so decisions, depend on it.
const histories = readdirSync(__dirname)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({ workflowId: file.replace(/\.json$/, ''), history: JSON.parse(readFileSync(path.join(__dirname, file), 'utf8')) }));

describe('committed workflow histories', () => {
  it('include turns paused, approved, denied, expired and decided by policy, and a conversation that continued as new', () => {
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

  it('replay on the current workflow code without a determinism error', async () => {
    const results = Worker.runReplayHistories({ workflowBundle: { codePath: workflowBundlePath() } }, histories);
    const failures: string[] = [];
    for await (const result of results) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});
