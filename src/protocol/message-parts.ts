import { z } from 'zod';
import { providerOptionsSchema } from './provider-options';
import { toolResultOutputSchema } from './tool-result-output';

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
  /** HMAC over the call, in the AI SDK's `experimental_toolApprovalSecret` format: proof Tollgate issued it. */
  signature: z.string().optional(),
  providerOptions: providerOptionsSchema,
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
  providerOptions: providerOptionsSchema,
});
export type ToolApprovalResponsePart = z.infer<typeof toolApprovalResponsePartSchema>;

/** The model's reasoning, as providers that expose it send it. */
export const reasoningPartSchema = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  providerOptions: providerOptionsSchema,
});
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;

/** Binary or linked data: base64 text, a data/http URL, or a provider reference. */
const dataContentSchema = z.union([z.string(), z.instanceof(URL), z.looseObject({})]);

/** An image the person sent. */
export const imagePartSchema = z.object({
  type: z.literal('image'),
  image: dataContentSchema,
  mediaType: z.string().optional(),
  providerOptions: providerOptionsSchema,
});
export type ImagePart = z.infer<typeof imagePartSchema>;

/** A file the person sent. */
export const filePartSchema = z.object({
  type: z.literal('file'),
  data: dataContentSchema,
  filename: z.string().optional(),
  mediaType: z.string(),
  providerOptions: providerOptionsSchema,
});
export type FilePart = z.infer<typeof filePartSchema>;
