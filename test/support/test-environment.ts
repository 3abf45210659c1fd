import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker, type WorkerOptions } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { TollgateClient } from '../../src/client';
import { startModelServer, type ModelServer } from '../../src/dev/model-server';
import type { ToolApprovalPolicy } from '../../src/activities';
import type { PendingToolApproval } from '../../src/protocol';
import { pendingToolApprovalsQuery } from '../../src/workflows/definitions';
import type { ApprovalNotifier } from '../../src/notifications/notification-types';
import type { Tool } from '../../src/tools';
import type { McpServerConfigs } from '../../src/tools/mcp';
import type { SharedRecords } from '../../src/store/shared-records';
import { createTollgateWorker } from '../../src/worker';
import type { OperatorPolicy } from '../../src/policy';
import type { TurnActivityLimits } from '../../src/protocol';

/** The secret test workers sign approval requests with (the AI SDK's format). */
export const testApprovalSecret = 'tollgate-test-approval-secret';
import { routeWorkerLogsToFile } from './test-logs';

/** A Tollgate set-up for one test file: the shared dev server, a task queue of its own, a scripted model. */
export interface TestEnvironment {
  address: string;
  taskQueue: string;
  client: Client;
  tollgate: TollgateClient;
  model: ModelServer;
  /** Starts an in-process worker for `tools` (the set-up starts one). */
  startWorker(): Promise<void>;
  /** Shuts the in-process worker down gracefully. */
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export function temporalAddress(): string {
  const address = process.env.TOLLGATE_TEST_TEMPORAL_ADDRESS;
  if (!address)
    throw new Error(
      'TOLLGATE_TEST_TEMPORAL_ADDRESS is not set: run the tests with jest, whose global setup starts Temporal.',
    );
  return address;
}

export function workflowBundlePath(): string {
  const bundle = process.env.TOLLGATE_TEST_WORKFLOW_BUNDLE;
  if (!bundle) throw new Error('TOLLGATE_TEST_WORKFLOW_BUNDLE is not set: run the tests with jest.');
  return bundle;
}

export async function createTestEnvironment(options: {
  tools: Tool[];
  startWorker?: boolean;
  onToolApproval?: ToolApprovalPolicy;
  notifiers?: ApprovalNotifier[];
  /** The operator's policy for the worker (default: none, so the tools' own rules apply). */
  policy?: OperatorPolicy;
  /** The worker owner's limits for the turn's activities. */
  activityLimits?: TurnActivityLimits;
  /** More options for the worker, e.g. a shorter heartbeat throttle. */
  workerOptions?: Partial<WorkerOptions>;
  /** Prefix of the task queue's name. */
  taskQueuePrefix?: string;
  /** A Temporal server of the test's own (default: the shared dev server). */
  address?: string;
  /** MCP servers whose tools the worker offers beside `tools` (it connects at each start, closes at each stop). */
  mcpServers?: McpServerConfigs;
  /** The gateways' shared audit records, where the worker writes each call a standing grant let through. */
  auditRecords?: SharedRecords;
  /** Offer the model the built-in `proposePlan` tool (plan approval). */
  planApproval?: boolean;
}): Promise<TestEnvironment> {
  routeWorkerLogsToFile();
  const address = options.address ?? temporalAddress();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `${options.taskQueuePrefix ?? 'test'}-${randomUUID()}`;
  const model = await startModelServer();
  const nativeConnection = await NativeConnection.connect({ address });
  let running: { worker: Worker; done: Promise<void> } | undefined;

  const environment: TestEnvironment = {
    address,
    taskQueue,
    client,
    tollgate: new TollgateClient(client, taskQueue),
    model,
    async startWorker() {
      if (running) return;
      const worker = await createTollgateWorker({
        // Decisions in these tests are unsigned unless a test's policy trusts keys: said explicitly, as an operator must.
        acceptUnsignedDecisions: true,
        connection: nativeConnection,
        taskQueue,
        tools: options.tools,
        ...(options.mcpServers && { mcpServers: options.mcpServers }),
        onToolApproval: options.onToolApproval,
        notifiers: options.notifiers,
        policy: options.policy ?? {},
        ...(options.activityLimits && { activityLimits: options.activityLimits }),
        ...(options.auditRecords && { auditRecords: options.auditRecords }),
        ...(options.planApproval && { planApproval: true }),
        approvalSecret: testApprovalSecret,
        model: { baseURL: model.baseURL, apiKey: 'test', model: 'tollgate-scripted' },
        workflowBundle: { codePath: workflowBundlePath() },
        workerOptions: { shutdownGraceTime: '1s', ...options.workerOptions },
      });
      running = { worker, done: worker.run() };
    },
    async stopWorker() {
      if (!running) return;
      const { worker, done } = running;
      running = undefined;
      worker.shutdown();
      await done;
    },
    async close() {
      await environment.stopWorker();
      await model.close();
      await nativeConnection.close();
      await connection.close();
    },
  };
  if (options.startWorker !== false) await environment.startWorker();
  return environment;
}

let markerCount = 0;

/** A unique tag for one test's prompt, so its scripted replies cannot be taken by another turn. */
export function uniqueMarker(): string {
  markerCount += 1;
  return `[case-${markerCount}-${randomUUID().slice(0, 8)}]`;
}

/** Waits until a turn lists `count` pending approvals, and returns them. */
export async function waitForPending(
  handle: { query(query: typeof pendingToolApprovalsQuery): Promise<PendingToolApproval[]> },
  count: number,
): Promise<PendingToolApproval[]> {
  return waitFor(
    () => handle.query(pendingToolApprovalsQuery),
    (list) => list.length === count,
  );
}

/** Polls `read` until `accept` holds, or fails with what was last seen. */
export async function waitFor<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (accept(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `Timed out; last value: ${JSON.stringify(last)}${lastError ? `; last error: ${String(lastError)}` : ''}`,
  );
}

/** The activity types a history scheduled, in order. */
export function scheduledActivities(events: readonly temporal.api.history.v1.IHistoryEvent[]): string[] {
  return events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
}
