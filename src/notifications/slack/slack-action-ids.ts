/**
 * The `action_id`s of the two buttons on an approval message. The notifier puts them on the buttons and
 * the gateway accepts only these: both sides import them from here so they cannot drift apart.
 */
export const slackActionIds = {
  approve: 'tollgate_approve',
  deny: 'tollgate_deny',
} as const;

/** One of {@link slackActionIds}. */
export type SlackActionId = (typeof slackActionIds)[keyof typeof slackActionIds];

/** The `block_id` of the actions block that holds the two buttons. */
export const slackDecisionBlockId = 'tollgate_decision';
