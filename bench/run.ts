// `npm run bench`: approval round trips against the real Temporal dev server and the scripted model.
// Measures how long a turn takes from start to its approval request, and from the decision to the
// turn's end, over TOLLGATE_BENCH_TURNS turns (default 30, 5 at a time), plus the worker's memory.
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { performance } from 'node:perf_hooks';
import { TollgateClient } from '../src/client';
import { startDevServer } from '../src/dev/dev-server';
import { startModelServer } from '../src/dev/model-server';
import { tollgateSearchAttributes } from '../src/dev/search-attributes';
import { createTollgateWorker } from '../src/worker';
import { pendingToolApprovalsQuery } from '../src/workflows/definitions';
import { createTestTools } from '../test/support/test-tools';

const turns = Number(process.env.TOLLGATE_BENCH_TURNS ?? 30);
const concurrency = 5;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((first, second) => first - second);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await startDevServer({ searchAttributes: tollgateSearchAttributes });
  const model = await startModelServer();
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  try {
    const worker = await createTollgateWorker({
      connection: nativeConnection,
      taskQueue: 'bench',
      tools: createTestTools(() => undefined).tools,
      model: { baseURL: model.baseURL, apiKey: 'bench', model: 'tollgate-scripted' },
      workflowBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('../src/workflows') }),
    });
    const tollgate = new TollgateClient(new Client({ connection }), 'bench');
    const toRequest: number[] = [];
    const toEnd: number[] = [];
    const rssBefore = process.memoryUsage().rss;
    const runOne = async (index: number) => {
      const marker = `[bench-${index}]`;
      model.scriptFor(
        marker,
        { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'x' } }] },
        { text: 'ok' },
      );
      const started = performance.now();
      const handle = await tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
      let pending = await handle.query(pendingToolApprovalsQuery);
      while (pending.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        pending = await handle.query(pendingToolApprovalsQuery);
      }
      toRequest.push(performance.now() - started);
      const decided = performance.now();
      await tollgate.decide(pending[0]!.approvalId, { approved: true, approver: 'bench' });
      await handle.result();
      toEnd.push(performance.now() - decided);
    };
    await worker.runUntil(async () => {
      for (let first = 0; first < turns; first += concurrency) {
        await Promise.all(
          Array.from({ length: Math.min(concurrency, turns - first) }, (_, offset) => runOne(first + offset)),
        );
        process.stderr.write(`\r${Math.min(first + concurrency, turns)}/${turns} turns`);
      }
    });
    process.stderr.write('\n');
    const report = {
      turns,
      concurrency,
      startToApprovalRequestMs: { p50: percentile(toRequest, 0.5), p95: percentile(toRequest, 0.95) },
      decisionToTurnEndMs: { p50: percentile(toEnd, 0.5), p95: percentile(toEnd, 0.95) },
      rssGrowthMiB: Math.round((process.memoryUsage().rss - rssBefore) / 1024 / 1024),
    };
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await nativeConnection.close();
    await connection.close();
    await model.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
