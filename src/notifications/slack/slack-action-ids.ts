/**
 * The `action_id`s of the buttons on an approval message (Approve and allow only where the operator set default
 * grant terms). The notifier puts them on the buttons and
 * the gateway accepts only these: both sides import them from here so they cannot drift apart.
 */
export const slackActionIds = {
  approve: 'tollgate_approve',
  deny: 'tollgate_deny',
  approveAndAllow: 'tollgate_approve_allow',
} as const;

/** One of {@link slackActionIds}. */
export type SlackActionId = (typeof slackActionIds)[keyof typeof slackActionIds];

/** The `block_id` of the actions block that holds the two buttons. */
export const slackDecisionBlockId = 'tollgate_decision';

/**
 * The value of an approval button: the approvalId, and the digest of the arguments the message
 * shows (`<approvalId>#<inputDigest>`), so the decision binds to exactly what the person saw.
 */
export function slackButtonValue(approvalId: string, inputDigest: string | undefined): string {
  return inputDigest === undefined ? approvalId : `${approvalId}#${inputDigest}`;
}

/** Reads a button value written by {@link slackButtonValue}. */
export function readSlackButtonValue(value: string): { approvalId: string; argumentsDigest?: string } {
  const [approvalId = '', argumentsDigest] = value.split('#', 2);
  return argumentsDigest === undefined ? { approvalId } : { approvalId, argumentsDigest };
}
