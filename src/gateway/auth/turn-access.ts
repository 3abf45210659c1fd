import type { PersonDirectory } from '../../identity';
import type { PendingToolApproval } from '../../protocol';
import type { Caller } from './authenticate';

/**
 * Whether a person is named by an approval's approver list, or the approval names nobody in particular.
 * Approver lists name person ids; names written before the identity map (`slack:U0123`) count as well.
 */
export function isNamedApprover(
  person: string,
  approval: Pick<PendingToolApproval, 'approvers'>,
  people: PersonDirectory,
): boolean {
  if (!approval.approvers) return true;
  const names = people.namesOf(person);
  return approval.approvers.some((approver) => names.includes(approver));
}

/**
 * Whether a person may approve with changed input: the approval names editors and this person among them (by id, or
 * a channel identity as in approver lists). Nobody may when it names none.
 */
export function isNamedEditor(
  person: string,
  approval: Pick<PendingToolApproval, 'editors'>,
  people: PersonDirectory,
): boolean {
  if (!approval.editors) return false;
  const names = people.namesOf(person);
  return approval.editors.some((editor) => names.includes(editor));
}

/** Whether a caller may decide an approval: a deciding token, and a person its approver list allows. */
export function mayDecide(
  caller: Caller,
  approval: Pick<PendingToolApproval, 'approvers'>,
  people: PersonDirectory,
): boolean {
  return caller.scopes.has('approvals:decide') && isNamedApprover(caller.person, approval, people);
}

/** Whether a caller may read a turn: every turn with `turns:read-all`, its own with `turns:read`. */
export function mayReadTurn(caller: Caller, requester: string | undefined): boolean {
  if (caller.scopes.has('turns:read-all')) return true;
  return caller.scopes.has('turns:read') && requester !== undefined && requester === caller.person;
}
