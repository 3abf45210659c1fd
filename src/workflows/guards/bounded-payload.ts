// What a sender writes into a signal, update or message is read by workflow code, where an exception
// fails every workflow task after it. Nothing here recurses or calls JSON.stringify on what it is given:
// a value nested 100,000 deep, or a string of megabytes, is measured and summarised in bounded work.

/** How much of a value workflow code is willing to walk. */
export interface PayloadLimits {
  /** Deepest nesting of arrays and objects (the value itself is depth 0). */
  maxDepth: number;
  /** Most values (objects, arrays, strings, numbers, ...) in all. */
  maxNodes: number;
  /** Most UTF-16 code units of all strings and keys together. */
  maxStringLength: number;
}

/** Limits for a decision, a supersede request or anything else a person or a bot sends by signal. */
export const signalPayloadLimits: PayloadLimits = { maxDepth: 8, maxNodes: 1_000, maxStringLength: 64_000 };

/** Limits for one `respondToToolApprovals` update: up to 100 decisions. */
export const decisionBatchPayloadLimits: PayloadLimits = { maxDepth: 8, maxNodes: 5_000, maxStringLength: 500_000 };

/**
 * Limits for one `respondToToolApprovals` update of a turn from revision 7, whose decisions may carry an editor's
 * tool input: deeper and with more values, as tool arguments may be, and no more text.
 */
export const editedDecisionBatchPayloadLimits: PayloadLimits = {
  maxDepth: 64,
  maxNodes: 20_000,
  maxStringLength: 500_000,
};

/**
 * Limits for system payloads that carry tool arguments or outputs (a turn's pending list, a client tool's
 * output): as deep and as large as JSON a tool may reasonably take, within the server's 2 MB per payload.
 */
export const toolDataPayloadLimits: PayloadLimits = {
  maxDepth: 64,
  maxNodes: 100_000,
  maxStringLength: 2_000_000,
};

/** Whether a value stays within limits, and if not, the first limit it breaks. */
export type PayloadInspection = { bounded: true } | { bounded: false; reason: string };

/**
 * Walks `value` iteratively and stops at the first limit it breaks. A cycle (which deserialised JSON cannot
 * have, but a value built in code can) breaks the depth limit rather than looping.
 *
 * @example
 * inspectPayload(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)), signalPayloadLimits);
 * // { bounded: false, reason: 'nested deeper than 8 levels' }
 */
export function inspectPayload(value: unknown, limits: PayloadLimits): PayloadInspection {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let nodes = 0;
  let characters = 0;
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    nodes += 1;
    if (nodes > limits.maxNodes) return { bounded: false, reason: `more than ${limits.maxNodes} values` };
    if (typeof current === 'string') {
      characters += current.length;
      if (characters > limits.maxStringLength) {
        return { bounded: false, reason: `more than ${limits.maxStringLength} characters of text` };
      }
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limits.maxDepth) return { bounded: false, reason: `nested deeper than ${limits.maxDepth} levels` };
    if (Array.isArray(current)) {
      if (nodes + current.length > limits.maxNodes) {
        return { bounded: false, reason: `more than ${limits.maxNodes} values` };
      }
      for (const item of current) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    if (nodes + keys.length > limits.maxNodes) return { bounded: false, reason: `more than ${limits.maxNodes} values` };
    for (const key of keys) {
      characters += key.length;
      stack.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1 });
    }
    if (characters > limits.maxStringLength) {
      return { bounded: false, reason: `more than ${limits.maxStringLength} characters of text` };
    }
  }
  return { bounded: true };
}

/** A value summarised in bounded space: its JSON text up to `maxLength` characters, and whether that is all. */
export interface PayloadSummary {
  /** The start of the value's JSON text (at most `maxLength` characters). */
  prefix: string;
  /** True when `prefix` is the whole JSON text. */
  complete: boolean;
}

type Token = { text: string } | { value: unknown };

/**
 * The first `maxLength` characters of the JSON text of `value`, written iteratively and stopped as soon as
 * they are known, so the cost is bounded by `maxLength` whatever the value's depth or size. Values JSON cannot
 * hold are written as JSON.stringify would write them (`undefined` and functions in arrays as `null`, dropped
 * from objects); a value met again inside itself is written as `"[cycle]"`.
 */
export function summarisePayload(value: unknown, maxLength = 200): PayloadSummary {
  let out = '';
  const stack: Token[] = [{ value }];
  const open: object[] = [];
  // Stack heights at which the open values' tokens will all have been written.
  const closesAt: number[] = [];
  while (stack.length > 0) {
    if (out.length > maxLength) return { prefix: out.slice(0, maxLength), complete: false };
    while (closesAt.length > 0 && closesAt.at(-1) === stack.length) {
      closesAt.pop();
      open.pop();
    }
    const token = stack.pop() as Token;
    if ('text' in token) {
      out += token.text;
      continue;
    }
    const current = token.value;
    if (typeof current === 'string') out += quote(current, maxLength - out.length + 1);
    else if (typeof current === 'number') out += Number.isFinite(current) ? String(current) : 'null';
    else if (typeof current === 'boolean') out += String(current);
    else if (typeof current === 'bigint') out += `"${String(current)}"`;
    else if (typeof current !== 'object' || current === null) out += 'null';
    else if (open.includes(current)) out += '"[cycle]"';
    else {
      const tokens: Token[] = [];
      if (Array.isArray(current)) {
        tokens.push({ text: '[' });
        // Only as many items as can still show: each takes at least one character.
        const shown = Math.min(current.length, maxLength - out.length + 1);
        for (let index = 0; index < shown; index++) {
          if (index > 0) tokens.push({ text: ',' });
          const item: unknown = current[index];
          tokens.push({ value: typeof item === 'undefined' || typeof item === 'function' ? null : item });
        }
        tokens.push({ text: shown < current.length ? ',…' : ']' });
      } else {
        tokens.push({ text: '{' });
        let shown = 0;
        for (const key in current) {
          if (!Object.prototype.hasOwnProperty.call(current, key)) continue;
          const item = (current as Record<string, unknown>)[key];
          if (typeof item === 'undefined' || typeof item === 'function') continue;
          if (shown > maxLength - out.length) break;
          tokens.push({ text: `${shown > 0 ? ',' : ''}${quote(key, maxLength - out.length + 1)}:` });
          tokens.push({ value: item });
          shown += 1;
        }
        tokens.push({ text: '}' });
      }
      // While its tokens are on the stack, the value is open: met again inside, it is a cycle.
      open.push(current);
      closesAt.push(stack.length);
      for (let index = tokens.length - 1; index >= 0; index--) stack.push(tokens[index] as Token);
    }
  }
  return out.length > maxLength
    ? { prefix: out.slice(0, maxLength), complete: false }
    : { prefix: out, complete: true };
}

/** A JSON string literal for the start of `text`: at most `room` characters of it are quoted. */
function quote(text: string, room: number): string {
  return JSON.stringify(text.length > room ? text.slice(0, Math.max(0, room)) : text);
}
