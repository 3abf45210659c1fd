import { z } from 'zod';
import { toolResultOutputSchema } from './tool-result-output';

const providerOptionsSchema = z.record(z.string(), z.record(z.string(), z.json())).optional();

/** Plain text in a message. */
export const textPartSchema = z.object({
  type: z.literal('text'),
  text: z.string(),
  providerOptions: providerOptionsSchema,
});
export type TextPart = z.infer<typeof textPartSchema>;

/** The model asking for a tool to run. `input` is whatever the model sent, even when it is not valid. */
export const toolCallPartSchema = z.object({
  type: z.literal('tool-call'),
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  providerExecuted: z.boolean().optional(),
  providerOptions: providerOptionsSchema,
});
export type ToolCallPart = z.infer<typeof toolCallPartSchema>;

/** A tool call that waits for a person: the decision is keyed by `approvalId`. */
export const toolApprovalRequestPartSchema = z.object({
  type: z.literal('tool-approval-request'),
  approvalId: z.string(),
  toolCallId: z.string(),
});
export type ToolApprovalRequestPart = z.infer<typeof toolApprovalRequestPartSchema>;

/** The result of one tool call. */
export const toolResultPartSchema = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string(),
  toolName: z.string(),
  output: toolResultOutputSchema,
  providerOptions: providerOptionsSchema,
});
export type ToolResultPart = z.infer<typeof toolResultPartSchema>;

/** A recorded decision on a `tool-approval-request`. */
export const toolApprovalResponsePartSchema = z.object({
  type: z.literal('tool-approval-response'),
  approvalId: z.string(),
  approved: z.boolean(),
  reason: z.string().optional(),
  providerExecuted: z.boolean().optional(),
});
export type ToolApprovalResponsePart = z.infer<typeof toolApprovalResponsePartSchema>;
