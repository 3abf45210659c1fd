import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import {
  createActivities,
  modelSettingsFromEnvironment,
  type ModelSettingsFromEnvironment,
  type ToolApprovalPolicy,
} from './activities';
import { temporalSettingsFromEnvironment } from './client/temporal-settings';
import { preflightOrExit } from './client/temporal-preflight';
import { startModelServer } from './dev/model-server';
import { createWorkspaceTools } from './tools/workspace';
import type { ApprovalNotifier } from './notifications/notification-types';
import { notifiersFromEnvironment } from './notifications/notifiers-from-environment';
import type { Tool } from './tools';

/** What a Tollgate worker needs. */
export interface TollgateWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  tools: readonly Tool[];
  model: ModelSettingsFromEnvironment;
  /** Decides approvals before anyone is asked, e.g. "reads under /tmp are fine"; `ask` leaves it to a person. */
  onToolApproval?: ToolApprovalPolicy;
  /** Channels that tell people about approvals (Slack, email); targets come from tools' and turns' approvalRules. */
  notifiers?: readonly ApprovalNotifier[];
  /** A prebuilt workflow bundle (tests build it once); the workflow sources are bundled otherwise. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Passed through to `Worker.create`. */
  workerOptions?: Partial<WorkerOptions>;
}

/**
 * Creates a worker that runs `agentTurn` workflows and the activities for `tools`.
 *
 * @example
 * const worker = await createTollgateWorker({ connection, taskQueue: 'tollgate', tools, model });
 * await worker.run();
 */
export async function createTollgateWorker(options: TollgateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    activities: createActivities({
      tools: options.tools,
      model: options.model,
      onToolApproval: options.onToolApproval,
      notifiers: options.notifiers,
    }),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: require.resolve('./workflows') }),
    ...options.workerOptions,
  });
}

async function main(): Promise<void> {
  const temporal = temporalSettingsFromEnvironment();
  await preflightOrExit(temporal);
  const model = modelSettingsFromEnvironment();
  // With no model configured, answer from the scripted model server, as `npm run dev` does.
  const modelServer =
    process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL ? undefined : await startModelServer({ rules: true });
  if (modelServer) {
    model.baseURL = modelServer.baseURL;
    console.log(`No OPENAI_API_KEY: using the scripted model server at ${modelServer.baseURL}.`);
  }
  const connection = await NativeConnection.connect(temporal.connectionOptions);
  try {
    const worker = await createTollgateWorker({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      tools: createWorkspaceTools(),
      model,
      notifiers: notifiersFromEnvironment(),
    });
    console.log(`Tollgate worker on task queue "${temporal.taskQueue}" (${temporal.connectionOptions.address}).`);
    await worker.run();
  } finally {
    await connection.close();
    await modelServer?.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
