import { z } from 'zod';

/** The output of a tool call as the model will read it, with the AI SDK v6 literals. */
export const toolResultOutputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), value: z.string() }),
  z.object({ type: z.literal('json'), value: z.json() }),
  z.object({ type: z.literal('error-text'), value: z.string() }),
  z.object({ type: z.literal('error-json'), value: z.json() }),
  z.object({ type: z.literal('execution-denied'), reason: z.string().optional() }),
]);

/** What a tool call produced: its output, an error the model can read, or a denial. */
export type ToolResultOutput = z.infer<typeof toolResultOutputSchema>;

/** A denial result that tells the model the call did not run and why. */
export function executionDenied(reason?: string): ToolResultOutput {
  return reason === undefined ? { type: 'execution-denied' } : { type: 'execution-denied', reason };
}

/** An error result the model can read and act on. */
export function errorText(value: string): ToolResultOutput {
  return { type: 'error-text', value };
}
