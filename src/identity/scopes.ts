/**
 * What a gateway token may do. A token holds a list of these; a route asks for one.
 *
 * | scope | allows |
 * | --- | --- |
 * | `turns:start` | `POST /v1/turns` (the requester is the token's person) |
 * | `turns:autonomous` | `autoApprove: true` on a turn it starts |
 * | `turns:read` | reading the turns it started and their approvals |
 * | `turns:read-all` | reading every turn and every pending approval |
 * | `approvals:decide` | deciding the approvals it may decide, and seeing them pending |
 * | `audit:read` | `GET /v1/audit`, the gateway's record of every decision attempt |
 */
export const tokenScopes = [
  'turns:start',
  'turns:autonomous',
  'turns:read',
  'turns:read-all',
  'approvals:decide',
  'audit:read',
] as const;

/** One scope of {@link tokenScopes}. */
export type TokenScope = (typeof tokenScopes)[number];

/**
 * Scopes of a token given in the `TOLLGATE_GATEWAY_TOKENS` shortcut (`{ "<token>": "<person>" }`):
 * start turns, read its own, decide. Reading everything, the audit and autonomous runs need the access file.
 */
export const defaultShortcutScopes: readonly TokenScope[] = ['turns:start', 'turns:read', 'approvals:decide'];

/** True for a known scope name. */
export function isTokenScope(value: unknown): value is TokenScope {
  return typeof value === 'string' && (tokenScopes as readonly string[]).includes(value);
}
