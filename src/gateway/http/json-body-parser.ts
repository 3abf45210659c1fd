import { GatewayError } from './gateway-error';

/** Deepest nesting accepted; deeper bodies are refused before any recursive code sees them. */
export const maximumJsonDepth = 64;

/**
 * Parses a JSON request body, refusing prototype-poisoning keys by name. Fastify's own parser
 * rejects them too, but as bare "invalid JSON", which does not tell the caller what to fix.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim().length === 0) {
    throw new GatewayError('malformed-json', 'The body is empty; send a JSON object.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // SyntaxError messages name a position and a token, never anything beyond the body itself.
    throw new GatewayError('malformed-json', `The body is not valid JSON: ${(error as Error).message}`);
  }
  const problem = findForbiddenKey(value);
  if (problem) {
    throw new GatewayError('invalid-request', `${problem.field}: ${problem.message}`, { errors: [problem] });
  }
  return value;
}

/**
 * The first `__proto__` key, `constructor` key holding a `prototype`, or nesting past
 * {@link maximumJsonDepth} in parsed JSON. Iterative, so a deeply nested body cannot overflow the stack.
 */
export function findForbiddenKey(value: unknown): { field: string; message: string } | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: 'body', depth: 0 }];
  while (stack.length > 0) {
    const current = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof current.value !== 'object' || current.value === null) continue;
    if (current.depth >= maximumJsonDepth) {
      return { field: current.path, message: `nested more than ${maximumJsonDepth} levels deep` };
    }
    for (const [key, item] of Object.entries(current.value)) {
      const path = Array.isArray(current.value) ? `${current.path}[${key}]` : `${current.path}.${key}`;
      if (key === '__proto__') return { field: path, message: 'this key is not allowed' };
      if (key === 'constructor' && typeof item === 'object' && item !== null && 'prototype' in item) {
        return { field: path, message: 'this key is not allowed' };
      }
      stack.push({ value: item, path, depth: current.depth + 1 });
    }
  }
  return undefined;
}
