import type { PersonDirectory } from '../../identity';
import type { ApproverTokens } from '../auth/approver-tokens';

/** Who signs in to the inbox: a person of the identity map, by one of their addresses. */
export interface InboxPerson {
  /** The person id: what approver lists, self-approval and quorum compare. */
  person: string;
  /** The address they proved, lower-cased. */
  address: string;
}

/**
 * The person an address signs in as, or undefined: the address must belong to a person of the identity map
 * (`people` in the access file) who holds a token with `approvals:decide`. Without the map, nobody signs in:
 * an address alone names nobody the operator listed.
 *
 * @example
 * inboxPersonOf('Ana@Example.com', people, tokens); // { person: 'ana', address: 'ana@example.com' }
 */
export function inboxPersonOf(
  address: string,
  people: PersonDirectory,
  tokens: ApproverTokens,
): InboxPerson | undefined {
  const trimmed = address.trim().toLowerCase();
  if (trimmed.length === 0 || trimmed.length > 320 || !people.configured) return undefined;
  const found = people.byEmailAddress(trimmed);
  if (!found) return undefined;
  const decides = tokens.holds(found.id, 'approvals:decide');
  return decides ? { person: found.id, address: trimmed } : undefined;
}
