import { z } from 'zod';
import { durationSchema, durationToMilliseconds } from './duration';
import type { GrantScope, GrantTerms } from './standing-grant';

const name = z.string().min(1).max(200);

/** A condition on one argument of the covered tool (see `ArgumentConstraint`). */
export const argumentConstraintSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('path-under'), argument: name, folder: z.string().max(1000) }),
  z.strictObject({ type: z.literal('one-of'), argument: name, values: z.array(z.string().max(1000)).min(1).max(100) }),
  z.strictObject({ type: z.literal('at-most'), argument: name, max: z.number().finite() }),
]);

/** Whose calls a grant covers, as the ledger records it. */
export const grantScopeSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('conversation'), conversationId: z.string().min(1).max(500) }),
  z.strictObject({ type: z.literal('requester'), requester: name }),
  z.strictObject({ type: z.literal('everyone') }),
]);

const termsShape = {
  tools: z.array(name).min(1).max(50).optional(),
  mcpServer: name.optional(),
  uses: z.number().int().min(1).max(1_000_000).optional(),
  constraints: z.array(argumentConstraintSchema).min(1).max(20).optional(),
  reason: z.string().max(2000).optional(),
};

/** Grant terms as the ledger's `grant` update takes them (durations in milliseconds). */
export const grantTermsSchema = z
  .strictObject({
    ...termsShape,
    scope: grantScopeSchema,
    forMs: z
      .number()
      .int()
      .min(1000)
      .max(366 * 86_400_000)
      .optional(),
    fromApprovalId: z.string().min(1).max(300).optional(),
  })
  .refine((terms) => terms.tools !== undefined || terms.mcpServer !== undefined, {
    message: 'A grant names its tools (`tools`) or an MCP server (`mcpServer`).',
  })
  .refine((terms) => terms.forMs !== undefined || terms.uses !== undefined, {
    message: 'A grant is bounded: give it a duration (`for`), a number of uses (`uses`), or both.',
  });

/** The `grant` update of the grant ledger. */
export const ledgerGrantInputSchema = z.strictObject({
  /** Chosen by the sender, so that a retry records the grant once. */
  grantId: z.string().regex(/^grant-[0-9a-f]{8,32}$/, 'grant-<hex>'),
  terms: grantTermsSchema,
  grantedBy: name,
  grantedByNames: z.array(name).min(1).max(20),
  /** Who started the conversation a conversation-scoped grant covers, when known: they may not grant for it. */
  conversationRequester: name.optional(),
  /** The gateway's signature over the grant (`grantSignaturePayload`); workers that require signed decisions need it. */
  signature: z
    .strictObject({
      keyId: z.string().min(1).max(100),
      signedAt: z.string().min(1).max(40),
      value: z.string().min(1).max(200),
    })
    .optional(),
});
export type LedgerGrantInput = z.infer<typeof ledgerGrantInputSchema>;

/** The `claimGrant` update of the grant ledger. */
export const ledgerClaimInputSchema = z.strictObject({
  claimId: z.string().min(1).max(1200),
  call: z.strictObject({
    workflowId: z.string().min(1).max(1000),
    conversationId: z.string().min(1).max(1000),
    requester: name.optional(),
    toolName: name,
    input: z.unknown(),
    inputDigest: z.string().min(1).max(100),
  }),
  rights: z.strictObject({ approvers: z.array(name).max(200).optional(), quorum: z.number().int().min(1).max(20) }),
  /** Set where the worker accepts only signed decisions: only grants a trusted gateway key signed cover the call. */
  trustedKeys: z.record(z.string().min(1).max(100), z.string().min(1).max(100)).optional(),
  limits: z.strictObject({
    forbidden: z.boolean().optional(),
    maxForMs: z.number().int().min(0).optional(),
    maxUses: z.number().int().min(0).optional(),
  }),
});
export type LedgerClaimInput = z.infer<typeof ledgerClaimInputSchema>;

/** The `revokeGrant` update of the grant ledger. */
export const ledgerRevokeInputSchema = z.strictObject({
  grantId: z.string().min(1).max(100),
  revokedBy: name,
});
export type LedgerRevokeInput = z.infer<typeof ledgerRevokeInputSchema>;

/**
 * "…and allow": what a person adds to an approving decision so that later calls like it run without asking. The
 * tool is the approved call's; the scope defaults to the conversation.
 */
export const allowSchema = z.strictObject({
  /** How long: `'1h'`, `'8h'`, `'30m'`, or milliseconds. */
  for: durationSchema.optional(),
  /** How many calls. */
  uses: termsShape.uses,
  /** `conversation` (default): this conversation; `requester`: whoever started it; `everyone`. */
  scope: z.enum(['conversation', 'requester', 'everyone']).optional(),
  /** Conditions on the arguments of the calls it covers. */
  constraints: termsShape.constraints,
  /** Cover every tool of the approved call's MCP server, not only its tool. */
  wholeMcpServer: z.boolean().optional(),
});
export type Allow = z.infer<typeof allowSchema>;

/** `POST /v1/grants`: a grant given without deciding an approval. */
export const grantRequestSchema = z.strictObject({
  ...termsShape,
  for: durationSchema.optional(),
  scope: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('conversation'), conversationId: z.string().min(1).max(500) }),
    z.strictObject({ type: z.literal('requester'), requester: name }),
    z.strictObject({ type: z.literal('everyone') }),
  ]),
});
export type GrantRequest = z.infer<typeof grantRequestSchema>;

/** The terms of a grant request, durations in milliseconds. */
export function termsOfGrantRequest(request: GrantRequest): GrantTerms {
  const { for: duration, ...rest } = request;
  return { ...rest, ...(duration !== undefined && { forMs: durationToMilliseconds(duration) }) };
}

/** The terms an "…and allow" on an approved call of `toolName` in `workflowId` asks for. */
export function termsOfAllow(
  allow: Allow,
  call: { toolName: string; workflowId: string; conversationId: string; requester?: string; approvalId: string },
): GrantTerms {
  const scopeType = allow.scope ?? 'conversation';
  let scope: GrantScope;
  if (scopeType === 'everyone') scope = { type: 'everyone' };
  else if (scopeType === 'requester') {
    if (call.requester === undefined) throw new Error('The turn names no requester to allow for.');
    scope = { type: 'requester', requester: call.requester };
  } else scope = { type: 'conversation', conversationId: call.conversationId };
  const server = allow.wholeMcpServer ? /^(.+?)__/.exec(call.toolName)?.[1] : undefined;
  if (allow.wholeMcpServer && server === undefined) throw new Error(`"${call.toolName}" is not an MCP server's tool.`);
  return {
    ...(server !== undefined ? { mcpServer: server } : { tools: [call.toolName] }),
    scope,
    ...(allow.for !== undefined && { forMs: durationToMilliseconds(allow.for) }),
    ...(allow.uses !== undefined && { uses: allow.uses }),
    ...(allow.constraints !== undefined && { constraints: allow.constraints }),
    fromApprovalId: call.approvalId,
  };
}
