import { z } from 'zod';
import { durationSchema } from './duration';

/** Where a notice about an approval goes. */
export const notificationTargetSchema = z.discriminatedUnion('type', [
  /** A Slack channel (id or name) the bot is a member of. */
  z.strictObject({ type: z.literal('slack'), channel: z.string().min(1) }),
  /** Email addresses; each gets its own Approve and Deny links. */
  z.strictObject({ type: z.literal('email'), to: z.array(z.email()).min(1) }),
]);
export type NotificationTarget = z.infer<typeof notificationTargetSchema>;

/**
 * Who may decide an approval and who is told about it. Set per tool (in `defineTool`) or per turn;
 * a tool's own setting wins over the turn's.
 */
export const approvalRulesSchema = z.strictObject({
  /**
   * Identities allowed to decide: a gateway token's identity, `slack:<user id>`, `email:<address>`.
   * Anyone may decide when absent.
   */
  approvers: z.array(z.string().min(1)).min(1).optional(),
  /**
   * Identities (same forms as `approvers`) allowed to approve with changed input. Nobody may edit when absent; a
   * turn's rules may only narrow the operator's list (see docs/editing-arguments.md).
   */
  editors: z.array(z.string().min(1)).min(1).optional(),
  /** Whether the turn's requester may approve their own request (default true). */
  allowSelfApproval: z.boolean().optional(),
  /** How many distinct approvers must approve (default 1). One denial denies. */
  quorum: z.number().int().min(1).max(20).optional(),
  /** Who is told when the approval is requested. */
  notify: z.array(notificationTargetSchema).optional(),
  /** Send a second notice if still pending after this long. */
  remindAfter: durationSchema.optional(),
  /** Where the second notice goes (an escalation); the `notify` targets when absent. */
  escalateTo: z.array(notificationTargetSchema).optional(),
  /**
   * Warn the `notify` targets this long before the approval expires ("expires in 1 h"). The operator's warning
   * applies; a turn may only bring it earlier (see docs/expiry-and-analytics.md).
   */
  warnBeforeExpiry: durationSchema.optional(),
});
export type ApprovalRules = z.infer<typeof approvalRulesSchema>;
