import type { PersonDirectory } from './people';

/**
 * The one place a list of approvers or editors written with channel names becomes a list of person ids: with the
 * identity map configured, `slack:U0123` and `email:ana@example.com` become `ana`, so the approver rule
 * (`approverRefusal` in src/protocol), which compares person ids, names her. A person id, and any name the map does
 * not know (all of them when no map is configured: a channel identity is then its own person id), stays as written.
 * Names that come to the same person are kept once.
 *
 * @example
 * resolveApproverNames(['slack:U0123', 'bob'], people); // ['ana', 'bob']
 */
export function resolveApproverNames(names: readonly string[], people: PersonDirectory): string[] {
  return [...new Set(names.map((name) => people.personOfName(name)?.id ?? name))];
}
