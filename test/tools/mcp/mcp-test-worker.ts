import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { TollgateClient } from '../../../src/client';
import { startModelServer, type ModelServer } from '../../../src/dev/model-server';
import type { OperatorPolicy } from '../../../src/policy';
import type { McpServerConfigs } from '../../../src/tools/mcp';
import { createTollgateWorker } from '../../../src/worker';
import { temporalAddress, testApprovalSecret, workflowBundlePath } from '../../support/test-environment';
import { routeWorkerLogsToFile } from '../../support/test-logs';

/** A Tollgate worker whose only tools come from MCP servers, started through `createTollgateWorker`'s option. */
export interface McpTestWorker {
  tollgate: TollgateClient;
  client: Client;
  model: ModelServer;
  /** Starts a worker (connecting to the MCP servers); returns once it runs. */
  start(): Promise<void>;
  /** Stops the worker gracefully; the MCP connections it opened close with it. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function createMcpTestWorker(options: {
  mcpServers: McpServerConfigs;
  policy?: OperatorPolicy;
}): Promise<McpTestWorker> {
  routeWorkerLogsToFile();
  const address = temporalAddress();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `mcp-${randomUUID()}`;
  const model = await startModelServer();
  const nativeConnection = await NativeConnection.connect({ address });
  let running: { worker: Worker; done: Promise<void> } | undefined;
  const environment: McpTestWorker = {
    tollgate: new TollgateClient(client, taskQueue),
    client,
    model,
    async start() {
      if (running) return;
      const worker = await createTollgateWorker({
        connection: nativeConnection,
        taskQueue,
        tools: [],
        mcpServers: options.mcpServers,
        policy: options.policy ?? {},
        approvalSecret: testApprovalSecret,
        model: { baseURL: model.baseURL, apiKey: 'test', model: 'tollgate-scripted' },
        workflowBundle: { codePath: workflowBundlePath() },
        workerOptions: { shutdownGraceTime: '1s' },
      });
      running = { worker, done: worker.run() };
    },
    async stop() {
      if (!running) return;
      const { worker, done } = running;
      running = undefined;
      worker.shutdown();
      await done;
    },
    async close() {
      await environment.stop();
      await model.close();
      await nativeConnection.close();
      await connection.close();
    },
  };
  await environment.start();
  return environment;
}
