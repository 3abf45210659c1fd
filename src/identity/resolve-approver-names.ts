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

/**
 * `rules` with the names in its approver and editor lists resolved to person ids by {@link resolveApproverNames}: what
 * the gateway does to every rule a turn starts with (REST, chat), so the turn compares person ids.
 *
 * @example
 * approverNamesResolved({ approvers: ['slack:U0123'], quorum: 1 }, people); // { approvers: ['ana'], quorum: 1 }
 */
export function approverNamesResolved<Rules extends { approvers?: string[]; editors?: string[] }>(
  rules: Rules,
  people: PersonDirectory,
): Rules {
  return {
    ...rules,
    ...(rules.approvers && { approvers: resolveApproverNames(rules.approvers, people) }),
    ...(rules.editors && { editors: resolveApproverNames(rules.editors, people) }),
  };
}
