// Modules a workflow evaluates only when it needs them. With the reusable V8 context, every module a
// workflow imports is evaluated again in that workflow's own module scope and kept as long as it is
// cached, so a waiting turn should import only what it runs. These stay out of its scope until called.
import type * as SchemaChecks from './schema-checks';
import type * as AgentTurnV1 from './legacy/agent-turn-v1';
import type * as ConversationV1 from './legacy/conversation-v1';

/* eslint-disable @typescript-eslint/no-require-imports -- a require() in a function is what defers the module */

/** zod and the protocol's schemas: for a client tool's output and a conversation's message. */
export function loadSchemaChecks(): typeof SchemaChecks {
  return require('./schema-checks') as typeof SchemaChecks;
}

/** The frozen v1 turn, for executions that started before `turn-v2`. */
export function loadAgentTurnV1(): typeof AgentTurnV1 {
  return require('./legacy/agent-turn-v1') as typeof AgentTurnV1;
}

/** The frozen v1 conversation, for executions that started before `conversation-v2`. */
export function loadConversationV1(): typeof ConversationV1 {
  return require('./legacy/conversation-v1') as typeof ConversationV1;
}
