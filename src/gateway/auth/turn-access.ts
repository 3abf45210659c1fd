import { mayActOnApproval, type PendingToolApproval } from '../../protocol';
import type { Caller } from './authenticate';

/**
 * Whether a person is named by an approval's approver list, or the approval names nobody in particular: the
 * protocol's one approver rule (`approverRefusal`), as the turn applies it. Lists name person ids; a `slack:…` or
 * `email:…` name matches only where no identity map is configured (the channel identity is then the person id).
 */
export function isNamedApprover(person: string, approval: Pick<PendingToolApproval, 'approvers'>): boolean {
  return mayActOnApproval({ approvers: approval.approvers }, person, 'deny');
}

/** Whether a person may approve with changed input: the approval names editors and this person among them. */
export function isNamedEditor(person: string, approval: Pick<PendingToolApproval, 'editors'>): boolean {
  return mayActOnApproval({ editors: approval.editors }, person, 'edit');
}

/** Whether a caller may decide an approval: a deciding token, and a person its approver list allows. */
export function mayDecide(caller: Caller, approval: Pick<PendingToolApproval, 'approvers'>): boolean {
  return caller.scopes.has('approvals:decide') && isNamedApprover(caller.person, approval);
}

/** Whether a caller may read a turn: every turn with `turns:read-all`, its own with `turns:read`. */
export function mayReadTurn(caller: Caller, requester: string | undefined): boolean {
  if (caller.scopes.has('turns:read-all')) return true;
  return caller.scopes.has('turns:read') && requester !== undefined && requester === caller.person;
}
