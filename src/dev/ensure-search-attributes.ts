import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { pendingApprovalsSearchAttribute } from '../workflows/definitions';

/**
 * Registers Tollgate's search attribute on a namespace that lacks it. Without it, a turn's first
 * upsert fails its workflow task over and over, so a server we did not start must be checked.
 * Returns true when it had to register it.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<boolean> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  if (customAttributes?.[pendingApprovalsSearchAttribute.name] !== undefined) return false;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: {
      [pendingApprovalsSearchAttribute.name]: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
    },
  });
  return true;
}
