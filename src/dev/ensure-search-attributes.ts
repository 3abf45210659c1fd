import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { tollgateSearchAttributes } from './search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;
const indexedTypes = {
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
} as const;

/**
 * Registers Tollgate's search attributes on a namespace that lacks them. Without them, a turn's first
 * upsert fails its workflow task over and over, so a server we did not start must be checked.
 * Returns the names it had to register.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(tollgateSearchAttributes).filter(([name]) => customAttributes?.[name] === undefined);
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, indexedTypes[type]])),
  });
  return missing.map(([name]) => name);
}
