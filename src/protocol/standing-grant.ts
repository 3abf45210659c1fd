/**
 * Standing grants: a person's "yes, and don't ask me again" for a tool, bounded in scope, time and uses. These are
 * the shapes and the pure rules (what a grant covers, who may give one); the ledger that counts uses lives in
 * `src/workflows/grants`, the request schema at the edge in `grant-request.ts`. No zod here: workflow code uses it.
 */

/** Whose calls a grant covers. */
export type GrantScope =
  { type: 'conversation'; conversationId: string } | { type: 'requester'; requester: string } | { type: 'everyone' };

/** A condition on one top-level argument of the covered tool's input. */
export type ArgumentConstraint =
  /** The argument is a path inside `folder` (relative paths are read from the workspace root; `..` never escapes). */
  | { type: 'path-under'; argument: string; folder: string }
  /** The argument is one of `values` (a command from a list). */
  | { type: 'one-of'; argument: string; values: string[] }
  /** The argument is a number at most `max`. */
  | { type: 'at-most'; argument: string; max: number };

/** What a person grants. At least one of `tools` and `mcpServer`; at least one of `forMs` and `uses`. */
export interface GrantTerms {
  /** Tool names the grant covers. */
  tools?: string[];
  /** Every tool of this MCP server (named `<server>__<tool>`). */
  mcpServer?: string;
  /** Whose calls. */
  scope: GrantScope;
  /** How long the grant holds, in milliseconds from when it is recorded. */
  forMs?: number;
  /** How many calls it may let through. */
  uses?: number;
  /** Conditions every covered call's arguments meet. */
  constraints?: ArgumentConstraint[];
  /** Why, in the grantor's words. */
  reason?: string;
  /** The approval it was given with, when it was given while deciding one. */
  fromApprovalId?: string;
}

/** A call a grant let through, as the ledger keeps it (the newest few per grant). */
export interface GrantedCallRecord {
  /** The turn. */
  workflowId: string;
  /** The tool. */
  toolName: string;
  /** The claim (one call's slot in its turn). */
  claimId: string;
  /** When (ISO 8601). */
  at: string;
}

/** A grant as the ledger records it. */
export interface StandingGrant extends GrantTerms {
  /** `grant-<hex>`. */
  grantId: string;
  /** The person who gave it. */
  grantedBy: string;
  /** The person's names that approver lists may use (person id, `slack:…`, `email:…`). */
  grantedByNames: string[];
  /** When (ISO 8601). */
  grantedAt: string;
  /** When it stops covering calls (ISO 8601); never by time when absent. */
  expiresAt?: string;
  /** Calls it let through so far. */
  used: number;
  /** When it was revoked (ISO 8601). */
  revokedAt?: string;
  /** Who revoked it. */
  revokedBy?: string;
  /** The newest calls it let through (at most {@link grantedCallsKept}). */
  calls: GrantedCallRecord[];
  /** The gateway's signature and the terms it covers, when a gateway with a signing key gave the grant. */
  signed?: { terms: GrantTerms; signature: { keyId: string; signedAt: string; value: string } };
}

/** Calls kept per grant for the Temporal UI and the grants list; older ones are counted in `used` only. */
export const grantedCallsKept = 20;

/** A call that asks, as a claim presents it to the ledger. */
export interface ClaimedCall {
  /** The turn. */
  workflowId: string;
  /** The conversation the turn belongs to (its workflow id for a turn on its own). */
  conversationId: string;
  /** Who started the turn. */
  requester?: string;
  toolName: string;
  input: unknown;
  /** base64url SHA-256 of the canonical JSON of `input`. */
  inputDigest: string;
}

/** A ledger's answer to a claim: the grant that let the call through (one use counted), or none: the call asks. */
export type GrantClaim =
  | { covered: false }
  | {
      covered: true;
      grantId: string;
      grantedBy: string;
      /** Uses counted, this one included. */
      used: number;
      /** The grant's use limit. */
      uses?: number;
      expiresAt?: string;
      /** When the ledger counted this call's use (the first time, for a repeated claim): names its audit record. */
      claimedAt?: string;
    };

/** Who may decide the call, as the worker resolved it for this call. */
export interface ClaimRights {
  /** Person ids (or channel identities) allowed to decide; anyone when absent. */
  approvers?: string[];
  /** Distinct approvers needed. */
  quorum: number;
}

/** What the operator's policy allows for grants of one tool. */
export interface GrantLimits {
  /** No grant covers this tool. */
  forbidden?: boolean;
  /** The longest a grant of this tool may hold, in milliseconds; a grant without an end is refused when set. */
  maxForMs?: number;
  /** The most uses a grant of this tool may have; a grant without a use limit is refused when set. */
  maxUses?: number;
}

/** The conversation a turn belongs to: `<conversationId>/turn-<n>`, or the turn itself. */
export function conversationIdOf(workflowId: string): string {
  const match = /^(.*)\/turn-\d+$/.exec(workflowId);
  return match?.[1] ? match[1] : workflowId;
}

/**
 * The top turn of a sub-agent's turn (`<turn id>/reader-1/editor-1`, `depth` 2 → `<turn id>`): a grant that covers the
 * conversation covers its sub-agents. `depth` is the length of the turn's sub-agent path (0 for a top turn).
 */
export function topTurnIdOf(workflowId: string, depth = 0): string {
  const segments = workflowId.split('/');
  return depth > 0 && segments.length > depth ? segments.slice(0, -depth).join('/') : workflowId;
}

/** Whether `toolName` is one of the tools a grant names. */
export function grantNamesTool(grant: Pick<GrantTerms, 'tools' | 'mcpServer'>, toolName: string): boolean {
  if (grant.tools?.includes(toolName)) return true;
  return grant.mcpServer !== undefined && toolName.startsWith(`${grant.mcpServer}__`);
}

/** Whether the grant's scope includes the call. */
function scopeIncludes(scope: GrantScope, call: ClaimedCall): boolean {
  if (scope.type === 'everyone') return true;
  if (scope.type === 'requester') return call.requester !== undefined && call.requester === scope.requester;
  return scope.conversationId === call.conversationId;
}

/**
 * Why `grant` does not cover `call` at `now`, or undefined when it does. The grantor's rights are judged against
 * the call's own rights, as the worker resolved them: only someone who could have decided this call, alone, for
 * someone else, lets it through; and the operator's current limits apply to grants given before they were set.
 */
export function grantCoverProblem(
  grant: StandingGrant,
  call: ClaimedCall,
  rights: ClaimRights,
  limits: GrantLimits,
  now: Date,
): string | undefined {
  if (grant.revokedAt !== undefined) return 'revoked';
  if (grant.expiresAt !== undefined && Date.parse(grant.expiresAt) <= now.getTime()) return 'expired';
  if (grant.uses !== undefined && grant.used >= grant.uses) return 'used up';
  if (!grantNamesTool(grant, call.toolName)) return 'another tool';
  if (!scopeIncludes(grant.scope, call)) return 'another scope';
  if (call.requester !== undefined && call.requester === grant.grantedBy) return "the grantor's own request";
  if (rights.quorum > 1) return 'needs a quorum';
  if (rights.approvers && !rights.approvers.some((name) => grant.grantedByNames.includes(name))) {
    return 'the grantor may not decide it';
  }
  const limitProblem = grantLimitProblem(grant, limits);
  if (limitProblem) return limitProblem;
  for (const constraint of grant.constraints ?? []) {
    if (!constraintHolds(constraint, call.input)) return `argument "${constraint.argument}" outside the grant`;
  }
  return undefined;
}

/** Why the operator's limits refuse a grant with these terms, or undefined. */
export function grantLimitProblem(
  terms: Pick<GrantTerms, 'forMs' | 'uses'> & { grantedAt?: string; expiresAt?: string },
  limits: GrantLimits,
): string | undefined {
  if (limits.forbidden) return "the operator's policy allows no grants for this tool";
  const forMs =
    terms.expiresAt !== undefined && terms.grantedAt !== undefined
      ? Date.parse(terms.expiresAt) - Date.parse(terms.grantedAt)
      : terms.forMs;
  if (limits.maxForMs !== undefined && (forMs === undefined || forMs > limits.maxForMs)) {
    return `the operator's policy allows grants for this tool of at most ${limits.maxForMs} ms`;
  }
  if (limits.maxUses !== undefined && (terms.uses === undefined || terms.uses > limits.maxUses)) {
    return `the operator's policy allows grants for this tool of at most ${limits.maxUses} uses`;
  }
  return undefined;
}

/** Whether one constraint holds for a call's input. */
export function constraintHolds(constraint: ArgumentConstraint, input: unknown): boolean {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const value = Object.prototype.hasOwnProperty.call(input, constraint.argument)
    ? (input as Record<string, unknown>)[constraint.argument]
    : undefined;
  switch (constraint.type) {
    case 'one-of':
      return typeof value === 'string' && constraint.values.includes(value);
    case 'at-most':
      return typeof value === 'number' && Number.isFinite(value) && value <= constraint.max;
    case 'path-under':
      return typeof value === 'string' && isPathUnder(value, constraint.folder);
  }
}

/**
 * Whether `path` lies in `folder` (or is it), compared after normalising both: a grant's `path-under` constraint and
 * the suggestions that propose one read paths by this one rule. A `..` that leaves the root is under nothing.
 */
export function isPathUnder(path: string, folder: string): boolean {
  const normalPath = normalisePath(path);
  const normalFolder = normalisePath(folder);
  if (normalPath === undefined || normalFolder === undefined) return false;
  return normalFolder === '' || normalPath === normalFolder || normalPath.startsWith(`${normalFolder}/`);
}

/**
 * A path with `.` and empty segments removed and no leading `./` or `/` (workspace paths are relative to its root);
 * undefined when `..` would leave the root, so such a path is never "under" anything.
 */
export function normalisePath(path: string): string | undefined {
  const parts: string[] = [];
  for (const segment of path.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join('/');
}

/**
 * Why the constraints do not fit a tool's input JSON Schema, or undefined: each names a top-level property, of the
 * kind it compares (a string for `path-under` and `one-of`, a number for `at-most`).
 */
export function constraintSchemaProblem(
  constraints: readonly ArgumentConstraint[],
  toolName: string,
  inputJsonSchema: Record<string, unknown>,
): string | undefined {
  const properties = inputJsonSchema.properties;
  for (const constraint of constraints) {
    const property =
      typeof properties === 'object' && properties !== null && Object.hasOwn(properties, constraint.argument)
        ? (properties as Record<string, unknown>)[constraint.argument]
        : undefined;
    if (typeof property !== 'object' || property === null) {
      return `Tool "${toolName}" has no argument "${constraint.argument}" to constrain.`;
    }
    const types = schemaTypes(property as Record<string, unknown>);
    const wanted = constraint.type === 'at-most' ? ['number', 'integer'] : ['string'];
    if (!types.some((type) => wanted.includes(type))) {
      return (
        `A "${constraint.type}" constraint needs ${constraint.type === 'at-most' ? 'a number' : 'a string'}, ` +
        `but argument "${constraint.argument}" of tool "${toolName}" is ${types.join(' or ') || 'of no declared type'}.`
      );
    }
  }
  return undefined;
}

function schemaTypes(property: Record<string, unknown>): string[] {
  const { type, anyOf } = property;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  if (Array.isArray(anyOf)) {
    return anyOf.flatMap((entry) =>
      typeof entry === 'object' && entry !== null ? schemaTypes(entry as Record<string, unknown>) : [],
    );
  }
  if (Array.isArray(property.enum) && property.enum.every((entry) => typeof entry === 'string')) return ['string'];
  return [];
}

/** Who asks for a grant, and what is known about the call they were shown (when granting while deciding one). */
export interface Grantor {
  /** Person id. */
  person: string;
  /** The person's names approver lists may use. */
  names: string[];
}

/**
 * Why `grantor` may not give a grant with `terms`, or undefined: the rules that hold for decisions hold for grants.
 * `rights` are those of the covered tool's calls as the worker resolves them for `requester` (the scope's requester
 * or the conversation's); `limits` the operator's for the tool.
 */
export function grantRefusal(
  grantor: Grantor,
  terms: GrantTerms,
  rights: ClaimRights & { requester?: string },
  limits: GrantLimits,
): string | undefined {
  const tools = [...(terms.tools ?? []), ...(terms.mcpServer !== undefined ? [`${terms.mcpServer}__*`] : [])];
  const what = tools.join(', ');
  if (rights.approvers && !rights.approvers.some((name) => grantor.names.includes(name))) {
    return `"${grantor.person}" may not decide calls of ${what}, so may not grant them (only ${rights.approvers.join(', ')} may).`;
  }
  if (rights.quorum > 1) {
    return `Calls of ${what} need ${rights.quorum} approvers; one person cannot grant them.`;
  }
  const ownRequests =
    (terms.scope.type === 'requester' && terms.scope.requester === grantor.person) ||
    (rights.requester !== undefined && rights.requester === grantor.person);
  if (ownRequests) return `"${grantor.person}" may not grant for their own requests.`;
  const limit = grantLimitProblem(terms, limits);
  if (limit) return `Refused: ${limit}.`;
  return undefined;
}
