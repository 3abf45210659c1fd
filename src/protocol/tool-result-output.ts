import { z } from 'zod';
import { providerOptionsSchema } from './provider-options';

/**
 * The output of a tool call as the model will read it, with the AI SDK's literals. `content` is a
 * list of parts (text, files, images) as the AI SDK writes it; its items pass through unchanged.
 */
export const toolResultOutputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), value: z.string(), providerOptions: providerOptionsSchema }),
  z.object({ type: z.literal('json'), value: z.json(), providerOptions: providerOptionsSchema }),
  z.object({ type: z.literal('error-text'), value: z.string(), providerOptions: providerOptionsSchema }),
  z.object({ type: z.literal('error-json'), value: z.json(), providerOptions: providerOptionsSchema }),
  z.object({
    type: z.literal('execution-denied'),
    reason: z.string().optional(),
    providerOptions: providerOptionsSchema,
  }),
  z.object({
    type: z.literal('content'),
    value: z.array(z.looseObject({ type: z.string() })),
    providerOptions: providerOptionsSchema,
  }),
]);

/** What a tool call produced: its output, an error the model can read, or a denial. */
export type ToolResultOutput = z.infer<typeof toolResultOutputSchema>;
