import { z } from 'zod';

/** A checker for an MCP tool's arguments, and the JSON Schema the model is shown. */
export interface JsonSchemaInput {
  /** Checks arguments against the server's schema; what it passes on is the arguments unchanged. */
  inputSchema: z.ZodType;
  /** The server's schema, as the model sees it (without `$schema`). */
  parameters: Record<string, unknown>;
  /** Set when the schema could not be turned into a check: the server alone checks the arguments then. */
  unchecked?: string;
}

/**
 * Turns an MCP tool's `inputSchema` (JSON Schema) into a check that runs before a call is planned, so that a bad
 * call becomes an error the model reads, not a request a person is asked to approve. The arguments are passed on
 * as the model wrote them (no defaults filled in): what the approver saw is what the server gets.
 */
export function jsonSchemaInput(schema: unknown): JsonSchemaInput {
  const { $schema: _ignored, ...parameters } = (isRecord(schema) ? schema : {}) as Record<string, unknown>;
  // Model APIs want an object schema with properties, even an empty one.
  if (parameters.type === undefined) parameters.type = 'object';
  if (parameters.type === 'object' && parameters.properties === undefined) parameters.properties = {};
  let checker: z.ZodType;
  try {
    checker = z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    return { inputSchema: argumentsObject, parameters, unchecked: (error as Error).message };
  }
  const inputSchema = argumentsObject.superRefine((value, context) => {
    let checked: ReturnType<z.ZodType['safeParse']>;
    try {
      checked = checker.safeParse(value);
    } catch {
      // A schema zod cannot follow (an unresolved $ref): the server checks what it receives.
      return;
    }
    if (checked.success) return;
    for (const issue of checked.error.issues)
      context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });
  return { inputSchema, parameters };
}

/** MCP arguments are always an object. */
const argumentsObject = z.record(z.string(), z.unknown());

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
