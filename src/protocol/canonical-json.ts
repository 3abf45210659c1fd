/**
 * JSON with object keys sorted, so that equal values always give the same text. The AI SDK hashes
 * tool inputs this way for its approval signatures; Tollgate hashes the same text so that a
 * signature made by either side verifies on the other.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    return `[${value.map((element) => (element === undefined ? 'null' : canonicalJson(element))).join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
    .join(',')}}`;
}
