import { z } from 'zod';
import { providerOptionsSchema } from './provider-options';
import {
  filePartSchema,
  imagePartSchema,
  reasoningPartSchema,
  textPartSchema,
  toolApprovalRequestPartSchema,
  toolApprovalResponsePartSchema,
  toolCallPartSchema,
  toolResultPartSchema,
} from './message-parts';

/** Instructions for the model. */
export const systemMessageSchema = z.object({
  role: z.literal('system'),
  content: z.string(),
  providerOptions: providerOptionsSchema,
});
export type SystemMessage = z.infer<typeof systemMessageSchema>;

/** One part of what the person sent: text, an image or a file. */
export const userContentPartSchema = z.discriminatedUnion('type', [textPartSchema, imagePartSchema, filePartSchema]);
export type UserContentPart = z.infer<typeof userContentPartSchema>;

/** What the person asked. */
export const userMessageSchema = z.object({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(userContentPartSchema)]),
  providerOptions: providerOptionsSchema,
});
export type UserMessage = z.infer<typeof userMessageSchema>;

/**
 * One assistant part: text, a tool call, a request for approval of a tool call, or the result of a
 * call the model provider ran itself (provider-executed tools).
 */
export const assistantContentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  reasoningPartSchema,
  toolCallPartSchema,
  toolApprovalRequestPartSchema,
  toolResultPartSchema,
  filePartSchema,
]);
export type AssistantContentPart = z.infer<typeof assistantContentPartSchema>;

/** What the model said in one step, with any approval requests Tollgate added. */
export const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(assistantContentPartSchema)]),
  providerOptions: providerOptionsSchema,
});
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;

/** One tool message part: a result or a recorded decision. */
export const toolContentPartSchema = z.discriminatedUnion('type', [
  toolResultPartSchema,
  toolApprovalResponsePartSchema,
]);
export type ToolContentPart = z.infer<typeof toolContentPartSchema>;

/** The decisions and results of one step's tool calls. */
export const toolMessageSchema = z.object({
  role: z.literal('tool'),
  content: z.array(toolContentPartSchema),
  providerOptions: providerOptionsSchema,
});
export type ToolMessage = z.infer<typeof toolMessageSchema>;

/** A message in the AI SDK v6 `ModelMessage` shape. */
export const modelMessageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);
export type ModelMessage = z.infer<typeof modelMessageSchema>;
