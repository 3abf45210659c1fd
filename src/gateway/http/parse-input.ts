import type { z } from 'zod';
import { GatewayError, type FieldProblem } from './gateway-error';

/** Where in the request a value came from; it prefixes field names in error messages. */
export type InputLocation = 'body' | 'query' | 'params';

// Keys that name who acts: the gateway takes them from the token, so a body that sends them is refused
// with a message that says so rather than a bare "unrecognized key".
const identityKeys: Record<string, string> = {
  approver: 'the approver is the identity of your bearer token; leave "approver" out',
  requester: 'the requester is the identity of your bearer token; leave "requester" out',
};

/**
 * Parses one part of a request with a strict schema, or throws a 400 {@link GatewayError} that names
 * every field at fault (`body.responses[0].approved: expected boolean, received string`).
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  location: InputLocation,
): z.output<Schema> {
  return parsedInput(schema.safeParse(value ?? (location === 'body' ? undefined : {})), value, location);
}

/**
 * What {@link parseInput} answers for a parse already made of `value`: its data, or the same 400 naming every field at
 * fault. For a route that keeps one parse for itself and its hooks.
 */
export function parsedInput<Output>(
  parsed: z.ZodSafeParseResult<Output>,
  value: unknown,
  location: InputLocation,
): Output {
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.flatMap((issue): FieldProblem[] => {
    const base = formatPath(location, issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: formatPath(location, [...issue.path, key]),
        message: identityKeys[key] ?? 'unknown field',
      }));
    }
    if (issue.code === 'invalid_type' && issue.path.length === 0 && value === undefined && location === 'body') {
      return [{ field: 'body', message: 'a JSON body is required (Content-Type: application/json)' }];
    }
    return [{ field: base, message: issue.message }];
  });
  const detail = errors.map((error) => `${error.field}: ${error.message}`).join('; ');
  throw new GatewayError('invalid-request', detail, { errors });
}

function formatPath(location: InputLocation, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, segment) =>
      typeof segment === 'number'
        ? `${text}[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(segment))
          ? `${text}.${String(segment)}`
          : `${text}[${JSON.stringify(String(segment))}]`,
    location,
  );
}
