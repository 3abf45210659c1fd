import { z } from 'zod';
import { agentTurnInputSchema, allowSchema } from '../../protocol';

// Every schema is strict: an unknown key is a mistake worth a 400, never something to drop. The
// approver and the requester are not fields at all: they are the identity of the bearer token.

/**
 * An approvalId as a path or body names it: up to 1,000 characters, none of them a control character,
 * whitespace, a quote or a backslash (no id Tollgate or a provider issues has one, and they are what
 * turns an id into something else in a query, a log line or a terminal).
 */
export const approvalIdSchema = z
  .string()
  .min(1)
  .max(1000)
  .regex(
    /^[^\p{Cc}\p{Cf}\p{Z}\s\\'"`]+$/u,
    'not an approvalId: control characters, spaces, quotes and backslashes are refused',
  );

/** A workflow id as a path or a filter names it: the same rules as {@link approvalIdSchema}. */
export const workflowIdSchema = z
  .string()
  .min(1)
  .max(1000)
  .regex(
    /^[^\p{Cc}\p{Cf}\p{Z}\s\\'"`]+$/u,
    'not a workflow id: control characters, spaces, quotes and backslashes are refused',
  );

/** A digest of the arguments shown to the approver (base64url SHA-256, as pending approvals carry it). */
const argumentsDigestSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/, 'a base64url digest')
  .optional()
  .describe('The inputDigest of the approval as you were shown it; refused with 409 if the arguments differ.');

/** `POST /v1/turns`: the turn input without `requester`, which the gateway sets from the token. */
export const startTurnBodySchema = agentTurnInputSchema.omit({ requester: true });
export type StartTurnBody = z.infer<typeof startTurnBodySchema>;

const reasonSchema = z.string().max(2000).optional().describe('Why; the model reads it when the call is denied.');

/** An editor's replacement for the model's input (see docs/editing-arguments.md). */
const editedInputSchema = z
  .unknown()
  .optional()
  .describe(
    "Approve with this input instead of the model's (approved: true only; only the approval's editors; checked against the tool's input schema).",
  );

const inputOnlyWhenApproved = {
  message: 'input goes only with approved: true (a denied call runs nothing)',
  path: ['input'],
};

/** `POST /v1/approvals/:approvalId/decision`. */
export const decisionBodySchema = z
  .strictObject({
    approved: z.boolean().describe('true lets the call run; false denies it.'),
    reason: reasonSchema,
    argumentsDigest: argumentsDigestSchema,
    input: editedInputSchema,
    allow: allowSchema
      .optional()
      .describe(
        'Approve and allow: later calls like this one run without asking, within these bounds (docs/asking-less.md). Only with `approved: true`.',
      ),
  })
  .refine((body) => body.input === undefined || body.approved, inputOnlyWhenApproved)
  .refine((body) => body.allow === undefined || body.approved, {
    message: '`allow` goes with an approval (`approved: true`), never a denial.',
    path: ['allow'],
  });
export type DecisionBody = z.infer<typeof decisionBodySchema>;

/** `POST /v1/turns/:workflowId/decisions`: several decisions on one turn, applied all or none. */
export const batchDecisionBodySchema = z.strictObject({
  responses: z
    .array(
      z
        .strictObject({
          approvalId: approvalIdSchema,
          approved: z.boolean(),
          reason: reasonSchema,
          argumentsDigest: argumentsDigestSchema,
          input: editedInputSchema,
        })
        .refine((response) => response.input === undefined || response.approved, inputOnlyWhenApproved),
    )
    .min(1)
    .max(100),
});
export type BatchDecisionBody = z.infer<typeof batchDecisionBodySchema>;

/** Path parameters naming a turn. */
export const turnParamsSchema = z.strictObject({ workflowId: workflowIdSchema });

/** Path parameters naming a standing grant. */
export const grantParamsSchema = z.strictObject({
  grantId: z.string().regex(/^grant-[0-9a-f]{8,32}$/, 'a grant id (grant-<hex>)'),
});

/** Path parameters naming an approval. */
export const approvalParamsSchema = z.strictObject({ approvalId: approvalIdSchema });

/** `GET /v1/approvals` filters. */
export const listApprovalsQuerySchema = z.strictObject({
  tool: z.string().min(1).max(200).optional().describe('Only approvals of this tool.'),
  workflowId: workflowIdSchema
    .optional()
    .describe('Only approvals of turns whose workflow id starts with this (a turn, or a conversation prefix).'),
});

/** Records a page of `GET /v1/audit` reads: by default, and at most when asked. */
export const auditPageSize = { default: 1000, max: 10_000 } as const;

/** `GET /v1/audit` filters and its page. */
export const auditQuerySchema = z.strictObject({
  approvalId: approvalIdSchema.optional(),
  workflowId: workflowIdSchema.optional(),
  /** The `next` of the page before: this page starts after it. */
  after: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9._/-]+$/, 'is not a cursor from a page of the audit')
    .optional(),
  /** Records to read at most (default 1000). */
  limit: z.coerce.number().int().min(1).max(auditPageSize.max).optional(),
});

/** Routes that take no query string still refuse one, so a typo is not silently ignored. */
export const emptyQuerySchema = z.strictObject({});
