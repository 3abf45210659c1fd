// zod and the protocol's schemas, evaluated only when a workflow needs them. With the reusable V8 context, every
// module a workflow imports is evaluated again in that workflow's own module scope and kept as long as it is cached,
// so a waiting turn should import only what it runs: a turn that waits for an approval never checks a schema, a
// client tool's output or a conversation's message does.
import type * as SchemaChecks from './schema-checks';

/** The schema checks for a client tool's output and a conversation's message, loaded on first use. */
export function loadSchemaChecks(): typeof SchemaChecks {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a require() in a function is what defers the module
  return require('./schema-checks') as typeof SchemaChecks;
}
