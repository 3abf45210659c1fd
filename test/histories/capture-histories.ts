// Captures the histories that `replay-histories.test.ts` replays on today's workflow code, so a change
// that would break executions already waiting in production fails CI. Run it when a new path or a
// change to workflow code that can change its commands is worth guarding, and commit the JSON files:
//
//   npx tsx test/histories/capture-histories.ts              # every scenario whose files are missing
//   npx tsx test/histories/capture-histories.ts quorum notices  # only these
//
// Existing files are never overwritten: they hold histories of older code, which is the point.
// The `v2-*` files hold the `turn-v2` (or `conversation-v2`) patch marker: a pre-release worker recorded it in
// every execution it started. Today's code records none, so one captured again comes without it, and the
// marker stays covered only as long as some committed file holds it (the replay test checks that).
// A workflow id is its file name, with `/` written as `%2F`.
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TollgateClient } from '../../src/client';
import { startDevServer } from '../../src/dev/dev-server';
import { startModelServer } from '../../src/dev/model-server';
import { tollgateSearchAttributes } from '../../src/dev/search-attributes';
import { FileContentStore } from '../../src/store/file-content-store';
import { createTollgateWorker, tollgateWorkflowBundleOptions } from '../../src/worker';
import { testApprovalSecret } from '../support/test-environment';
import { createTestTools } from '../support/test-tools';
import { captureReader, historyScenarios, RecordingNotifier, type HistoryScenario } from './history-scenarios';

/** The file a workflow's history is kept in. */
function historyFile(workflowId: string): string {
  return path.join(__dirname, `${encodeURIComponent(workflowId)}.json`);
}

function selectScenarios(names: string[]): HistoryScenario[] {
  const unknown = names.filter((name) => !historyScenarios.some((scenario) => scenario.name === name));
  if (unknown.length > 0) {
    const known = historyScenarios.map((scenario) => scenario.name).join(', ');
    throw new Error(`Unknown scenario ${unknown.join(', ')}; known: ${known}`);
  }
  const chosen = names.length === 0 ? historyScenarios : historyScenarios.filter(({ name }) => names.includes(name));
  return chosen.filter((scenario) => {
    const missing = scenario.saves.some((workflowId) => !existsSync(historyFile(workflowId)));
    if (!missing) console.log(`${scenario.name}: every file exists, skipped (delete one to capture it again)`);
    return missing;
  });
}

async function main(): Promise<void> {
  const scenarios = selectScenarios(process.argv.slice(2));
  if (scenarios.length === 0) return;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const store = mkdtempSync(path.join(tmpdir(), 'tollgate-capture-'));
  const server = await startDevServer({ searchAttributes: tollgateSearchAttributes });
  const model = await startModelServer();
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  try {
    // One bundle for every scenario's worker, built once.
    const { code } = await bundleWorkflowCode({ workflowsPath: tollgateWorkflowBundleOptions().workflowsPath });
    const client = new Client({ connection });
    for (const scenario of scenarios) {
      // A worker per scenario, on a task queue of its own, with the operator's rules the path needs.
      const taskQueue = `capture-${scenario.name}`;
      const notifier = new RecordingNotifier();
      const tools = createTestTools().tools;
      const worker = await createTollgateWorker({
        // Decisions in these tests are unsigned unless a test's policy trusts keys: said explicitly, as an operator must.
        acceptUnsignedDecisions: true,
        connection: nativeConnection,
        taskQueue,
        tools: scenario.worker?.withAgents ? [...tools, captureReader(tools)] : tools,
        ...(scenario.worker?.onToolApproval === 'deny-deploy' && {
          onToolApproval: ({ toolName }) =>
            toolName === 'deploy' ? { decision: 'deny', reason: 'policy says no' } : 'ask',
        }),
        notifiers: [notifier],
        policy: scenario.worker?.policy ?? {},
        ...(scenario.worker?.planApproval && { planApproval: true }),
        approvalSecret: testApprovalSecret,
        store: new FileContentStore(store),
        model: { baseURL: model.baseURL, apiKey: 'capture', model: 'tollgate-scripted' },
        workflowBundle: { code },
        workerOptions: { shutdownGraceTime: '1s' },
      });
      const tollgate = new TollgateClient(client, taskQueue, undefined, new FileContentStore(store));
      const save = async (workflowId: string, runId?: string) => {
        const file = historyFile(workflowId);
        if (existsSync(file)) return;
        // historyToJSON writes the form historyFromJSON (and so the replayer) reads back.
        const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
        writeFileSync(file, historyToJSON(history));
        console.log(`saved ${path.basename(file)}`);
      };
      await worker.runUntil(scenario.run({ tollgate, model, notifier, save }));
    }
    if (model.failures.length > 0) throw new Error(`The scripted model failed: ${model.failures.join('; ')}`);
  } finally {
    await nativeConnection.close();
    await connection.close();
    await model.close();
    await server.stop();
    rmSync(store, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
