/**
 * A value a sender wrote, as `String(value)` would write it, without calling anything the value carries; undefined
 * where `String()` would throw. A JSON payload can name `toString` or `valueOf` (`{"toString": "x"}`): `String()` of
 * it throws "Cannot convert object to primitive value", which in workflow code fails every workflow task after it.
 * Everything else a JSON payload holds reads as it always has, so a history that turned such a value into text
 * replays the same. `value` must be bounded first (`inspectPayload`): arrays are read recursively.
 *
 * @example
 * textOfValue([1, [2, null]]); // '1,2,'
 * textOfValue({ toString: 'x' }); // undefined
 */
export function textOfValue(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return `${value}`;
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        // Array.prototype.toString joins the items with commas, null and undefined as nothing.
        const items: string[] = [];
        for (const item of value as unknown[]) {
          const text = item === null || item === undefined ? '' : textOfValue(item);
          if (text === undefined) return undefined;
          items.push(text);
        }
        return items.join(',');
      }
      // A plain object's own `toString` (never callable in JSON) leaves String() with no way to a primitive.
      if (Object.prototype.hasOwnProperty.call(value, 'toString')) return undefined;
      if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return undefined;
      return '[object Object]';
    }
    default:
      // Functions and symbols never come from a payload.
      return undefined;
  }
}

/** What was thrown, as a message: an error's own message, anything else without calling what it carries. */
export function messageOfThrown(thrown: unknown): string {
  const message = (thrown as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string') return message;
  return textOfValue(thrown) ?? 'an error that cannot be shown as text';
}
