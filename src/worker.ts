import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import {
  createActivities,
  modelSettingsFromEnvironment,
  type ModelSettingsFromEnvironment,
  type ToolApprovalPolicy,
} from './activities';
import { temporalSettingsFromEnvironment } from './client/temporal-settings';
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
  const connection = await NativeConnection.connect(temporal.connectionOptions);
  try {
    const worker = await createTollgateWorker({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      tools: createWorkspaceTools(),
      model: modelSettingsFromEnvironment(),
      notifiers: notifiersFromEnvironment(),
    });
    console.log(`Tollgate worker on task queue "${temporal.taskQueue}" (${temporal.connectionOptions.address}).`);
    await worker.run();
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
