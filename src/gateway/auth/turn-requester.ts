import type { TollgateClient } from '../../client';

/**
 * Who started a turn: the `requester` of its input, read from the first event of its history (the input
 * as Temporal recorded it, which nothing can change afterwards). The gateway sets it from the token on
 * `POST /v1/turns`, so it is what tenancy compares a caller with. Undefined for turns started without one
 * (over raw Temporal, or by the CLI).
 *
 * @example
 * const owner = await requesterOf(tollgate, 'turn-0123');
 */
export async function requesterOf(tollgate: TollgateClient, workflowId: string): Promise<string | undefined> {
  const { client } = tollgate;
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: 1,
    skipArchival: true,
  });
  const started = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  const [payload] = started?.input?.payloads ?? [];
  if (!payload) return undefined;
  const input = client.options.loadedDataConverter.payloadConverter.fromPayload<unknown>(payload);
  if (typeof input !== 'object' || input === null) return undefined;
  const requester = (input as { requester?: unknown }).requester;
  return typeof requester === 'string' ? requester : undefined;
}
