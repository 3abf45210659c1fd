// Without zod on purpose: workflow code judges decisions with it (see decision-signature-payload.ts).
import type { ApprovalRights } from './turn-plan';

/**
 * What a person would do with one approval: deny it, approve it as asked, approve it with changed input, or let a
 * standing grant decide it for them (a grant is a decision by a person who could have made it).
 */
export type ApproverAct = 'deny' | 'approve' | 'edit' | 'grant';

/**
 * Who may act on one approval: the rights a turn holds, or the part of them a pending approval shows (its
 * `approvers` and `editors`). What is absent restricts nobody: any approver, self-approval allowed, one approver
 * enough; and nobody may edit.
 */
export type ApproverRules = Partial<
  Pick<ApprovalRights, 'approvers' | 'editors' | 'allowSelfApproval' | 'quorum' | 'requester'>
>;

/**
 * Why `person` may not `act` on approval `approvalId` under `rules`, or undefined when they may: the one approver
 * rule, which the turn's approval book and the gateway's turn access both ask. `person` is a person id: a channel
 * identity is resolved to one first (`resolvePerson` in src/identity), and names in lists a caller writes through
 * the gateway too (`resolveApproverNames`); the lists are compared as they are, so `slack:…` and `email:…` names
 * match only where no identity map is configured (a channel identity is then its own person id).
 *
 * - deny: anyone when the approval names no approvers; otherwise one of them. Rules that only name editors restrict
 *   nobody's plain decision, so an unnamed person may decide there.
 * - approve: as deny, and the requester not when self-approval is not allowed.
 * - edit: as approve, and one of the `editors` (nobody when none), only on an approval one person settles.
 * - grant: as approve, named, and only on an approval one person settles (a grant is one person's decision).
 *
 * @example
 * approverRefusal('ap-1', { approvers: ['ana', 'bob'] }, 'eve', 'deny');
 * // '"eve" may not decide approval "ap-1"; it is limited to ana, bob.'
 * approverRefusal('ap-1', { approvers: ['ana'], editors: ['ana'] }, 'ana', 'edit'); // undefined
 */
export function approverRefusal(
  approvalId: string,
  rules: ApproverRules | undefined,
  person: string | undefined,
  act: ApproverAct,
): string | undefined {
  const approvers = rules?.approvers;
  const allowSelfApproval = rules?.allowSelfApproval ?? true;
  const quorum = rules?.quorum ?? 1;
  if (rules) {
    if (person === undefined) {
      // Rules that only name editors (revision 7) restrict nobody's plain decision; the edit and grant rules below
      // still want a name.
      const onlyEditors = !approvers && allowSelfApproval && quorum <= 1;
      if (!onlyEditors) return `Approval "${approvalId}" has approver rules; a decision must name its approver.`;
    } else {
      if (approvers && !approvers.includes(person)) {
        return `"${person}" may not decide approval "${approvalId}"; it is limited to ${approvers.join(', ')}.`;
      }
      if (act !== 'deny' && !allowSelfApproval && person === rules.requester) {
        return `"${person}" requested this call and may not approve it; someone else must.`;
      }
    }
  }
  if (act === 'edit') {
    const editors = rules?.editors;
    if (!editors || editors.length === 0) {
      return `Approval "${approvalId}" may not be approved with changed input: nobody may edit its arguments (the operator's policy names no editors).`;
    }
    if (person === undefined) return `A decision that changes the input of "${approvalId}" must name its approver.`;
    if (!editors.includes(person)) {
      return `"${person}" may not change the input of approval "${approvalId}"; only ${editors.join(', ')} may. Approve it as asked or deny it.`;
    }
    if (quorum > 1) {
      return `Approval "${approvalId}" needs ${quorum} approvers, so it cannot be approved with changed input; approve it as asked or deny it.`;
    }
  }
  if (act === 'grant') {
    if (person === undefined) return `A grant that decides "${approvalId}" must name the person who grants it.`;
    if (quorum > 1) {
      return `Approval "${approvalId}" needs ${quorum} approvers, so no one person's grant can decide it.`;
    }
  }
  return undefined;
}

/** Whether `person` may `act` on an approval under `rules`: {@link approverRefusal} finds nothing to refuse. */
export function mayActOnApproval(
  rules: ApproverRules | undefined,
  person: string | undefined,
  act: ApproverAct,
): boolean {
  return approverRefusal('', rules, person, act) === undefined;
}
