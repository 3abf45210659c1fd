import { Worker } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { routeWorkerLogsToFile } from '../support/test-logs';

// The example of docs/changing-workflow-code.md: a change to a workflow (notify the approver before waiting),
// guarded with patched(), and the histories captured before and after it.
const example = path.resolve(__dirname, '../../docs/examples/changing-workflow-code');
const history = (name: 'before' | 'after') => ({
  workflowId: `expense-${name}`,
  history: JSON.parse(readFileSync(path.join(example, 'histories', `expense-${name}.json`), 'utf8')),
});

/** Replays the histories on one version of the example's workflow; returns `workflowId: error` for each failure. */
async function replay(code: string, names: Array<'before' | 'after'>): Promise<string[]> {
  routeWorkerLogsToFile();
  const failures: string[] = [];
  const options = { workflowsPath: path.join(example, code) };
  for await (const result of Worker.runReplayHistories(options, names.map(history))) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

describe('changing workflow code safely (the docs example)', () => {
  it('replays an execution that waited through the change, and one started after it, on the patched code', async () => {
    expect(await replay('workflow.ts', ['before', 'after'])).toEqual([]);
  });

  it('fails the execution that waited through the change on the same change without patched()', async () => {
    expect(await replay('workflow-unguarded.ts', ['before'])).toEqual([
      expect.stringMatching(/^expense-before: .*[Nn]ondeterminism/),
    ]);
  });

  it('replays the executions that recorded the marker once the old path is gone, and only those', async () => {
    expect(await replay('workflow-deprecated.ts', ['after'])).toEqual([]);
    expect(await replay('workflow-deprecated.ts', ['before'])).toEqual([
      expect.stringMatching(/^expense-before: .*[Nn]ondeterminism/),
    ]);
  });

  it('shows in the docs page only code that is in the example, so that the page cannot drift from what CI runs', () => {
    const page = readFileSync(path.resolve(__dirname, '../../docs/changing-workflow-code.md'), 'utf8');
    // Compared line by line without indentation: the page shows an excerpt from inside a function unindented.
    const unindented = (code: string) =>
      code
        .trim()
        .split('\n')
        .map((line) => line.trim())
        .join('\n');
    const sources = ['workflow-before.ts', 'workflow.ts', 'workflow-deprecated.ts']
      .map((file) => unindented(readFileSync(path.join(example, file), 'utf8')))
      .join('\n');
    const samples = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => unindented(match[1]!));
    expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples) expect(sources).toContain(sample);
  });
});
