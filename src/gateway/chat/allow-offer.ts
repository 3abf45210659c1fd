import { approverRefusal, type PendingToolApproval } from '../../protocol';

/**
 * Why the chat page should not offer "Allow in this chat" on `approval` to `person`, the one streaming, when the turn's
 * requester is `requester`; undefined when it may be offered (or who streams is not known). The gateway decides the
 * grant by the one approver rule ({@link approverRefusal}, act `grant`) and keeps refusing whatever a page sends: this
 * only keeps the page from offering a button that is always refused, most of all one's own request in a one-person
 * chat (nobody grants for their own requests).
 *
 * @example
 * allowNotOffered({ approvers: undefined }, 'ana', 'ana'); // 'Only a teammate can allow your own requests.'
 * allowNotOffered({ approvers: undefined }, 'bob', 'ana'); // undefined
 */
export function allowNotOffered(
  approval: Pick<PendingToolApproval, 'approvers' | 'quorum'>,
  person: string | undefined,
  requester: string | undefined,
): string | undefined {
  if (person === undefined) return undefined;
  const rules = {
    ...(approval.approvers !== undefined && { approvers: approval.approvers }),
    ...(approval.quorum !== undefined && { quorum: approval.quorum }),
    ...(requester !== undefined && { requester }),
  };
  if (approverRefusal('', rules, person, 'grant') === undefined) return undefined;
  if (person === requester) return 'Only a teammate can allow your own requests.';
  if ((approval.quorum ?? 1) > 1) return `It needs ${approval.quorum} approvers, so it cannot be allowed in this chat.`;
  return `Only ${(approval.approvers ?? []).join(', ')} can allow this.`;
}
