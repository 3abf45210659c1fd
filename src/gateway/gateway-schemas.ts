import { z } from 'zod';
import { agentTurnInputSchema } from '../protocol';

// Every schema is strict: an unknown key is a mistake worth a 400, never something to drop. The
// approver and the requester are not fields at all: they are the identity of the bearer token.

/** `POST /v1/turns`: the turn input without `requester`, which the gateway sets from the token. */
export const startTurnBodySchema = agentTurnInputSchema.omit({ requester: true });
export type StartTurnBody = z.infer<typeof startTurnBodySchema>;

const reasonSchema = z.string().max(2000).optional().describe('Why; the model reads it when the call is denied.');

/** `POST /v1/approvals/:approvalId/decision`. */
export const decisionBodySchema = z.strictObject({
  approved: z.boolean().describe('true lets the call run; false denies it.'),
  reason: reasonSchema,
});
export type DecisionBody = z.infer<typeof decisionBodySchema>;

/** `POST /v1/turns/:workflowId/decisions`: several decisions on one turn, applied all or none. */
export const batchDecisionBodySchema = z.strictObject({
  responses: z
    .array(
      z.strictObject({
        approvalId: z.string().min(1).max(1000),
        approved: z.boolean(),
        reason: reasonSchema,
      }),
    )
    .min(1)
    .max(100),
});
export type BatchDecisionBody = z.infer<typeof batchDecisionBodySchema>;

/** Path parameters naming a turn. */
export const turnParamsSchema = z.strictObject({ workflowId: z.string().min(1).max(1000) });

/** Path parameters naming an approval. */
export const approvalParamsSchema = z.strictObject({ approvalId: z.string().min(1).max(1000) });

/** `GET /v1/approvals` filters. */
export const listApprovalsQuerySchema = z.strictObject({
  tool: z.string().min(1).max(200).optional().describe('Only approvals of this tool.'),
  workflowId: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe('Only approvals of turns whose workflow id starts with this (a turn, or a conversation prefix).'),
});

/** `GET /v1/audit` filters. */
export const auditQuerySchema = z.strictObject({
  approvalId: z.string().min(1).max(1000).optional(),
  workflowId: z.string().min(1).max(1000).optional(),
});

/** Routes that take no query string still refuse one, so a typo is not silently ignored. */
export const emptyQuerySchema = z.strictObject({});
