import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';

/** A JSON payload from its text, as any SDK (or a hand-written gRPC call) can send it. */
function jsonPayload(jsonText: string): temporal.api.common.v1.IPayload {
  return { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(jsonText) };
}

/**
 * Signals a workflow with an argument given as JSON text, bypassing the SDK's converter: JSON.stringify
 * cannot write a value nested 5,000 deep, but a sender can write such text by hand.
 */
export async function signalWithJson(client: Client, workflowId: string, signalName: string, jsonText: string) {
  await client.workflowService.signalWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId },
    signalName,
    input: { payloads: [jsonPayload(jsonText)] },
    identity: 'raw-sender',
    requestId: randomUUID(),
  });
}

/** Starts a workflow whose argument is JSON text, as a caller on Temporal can. */
export async function startWithJson(
  client: Client,
  options: { workflowId: string; workflowType: string; taskQueue: string },
  jsonText: string,
): Promise<void> {
  await client.workflowService.startWorkflowExecution({
    namespace: client.options.namespace,
    workflowId: options.workflowId,
    workflowType: { name: options.workflowType },
    taskQueue: { name: options.taskQueue },
    input: { payloads: [jsonPayload(jsonText)] },
    identity: 'raw-sender',
    requestId: randomUUID(),
  });
}

/** Sends an update whose argument is JSON text, and returns the failure message it was rejected with, if any. */
export async function updateWithJson(
  client: Client,
  workflowId: string,
  updateName: string,
  jsonText: string,
): Promise<string | undefined> {
  const response = await client.workflowService.updateWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId },
    request: {
      meta: { updateId: randomUUID(), identity: 'raw-sender' },
      input: { name: updateName, args: { payloads: [jsonPayload(jsonText)] } },
    },
    waitPolicy: {
      lifecycleStage:
        temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED,
    },
  });
  const failure = response.outcome?.failure;
  return failure ? (failure.message ?? 'rejected') : undefined;
}

/** `[[[…]]]` nested `depth` deep, as JSON text. */
export const nestedArrayJson = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** `{"a":{"a":…1}}` nested `depth` deep, as JSON text. */
export const nestedObjectJson = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** Queries a workflow with an argument given as JSON text; returns the answer's JSON text, or throws as Temporal does. */
export async function queryWithJson(
  client: Client,
  workflowId: string,
  queryType: string,
  jsonText: string,
): Promise<string> {
  const response = await client.workflowService.queryWorkflow({
    namespace: client.options.namespace,
    execution: { workflowId },
    query: { queryType, queryArgs: { payloads: [jsonPayload(jsonText)] } },
  });
  return Buffer.from(response.queryResult?.payloads?.[0]?.data ?? []).toString('utf8');
}
