import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { errorText, toolResultOutputSchema, type ToolResultOutput } from '../../protocol';
import type { ToolRegistry } from '../../tools';
import type {
  ExecuteTool,
  ExecuteToolInput,
  TollgateActivities,
  ValidateToolInputInput,
  ValidateToolOutputInput,
} from '../activity-types';

const heartbeatIntervalMs = 5_000;

/**
 * What runs the worker's tools: `executeTool`, which the turn's tool activities call, and the
 * `validateToolOutput` activity, which checks a client tool's output.
 */
export function createToolActivities(
  registry: ToolRegistry,
): { executeTool: ExecuteTool } & Pick<TollgateActivities, 'validateToolOutput' | 'validateToolInput'> {
  return {
    async executeTool({ toolCallId, toolName, input }: ExecuteToolInput): Promise<ToolResultOutput> {
      const tool = registry.get(toolName);
      if (!tool) return errorText(`Unknown tool "${toolName}".`);
      if (!tool.execute) return errorText(`Tool "${toolName}" is run by a client, not by the worker.`);
      const parsed = tool.inputSchema.safeParse(input);
      if (!parsed.success) return errorText(`Invalid input for tool "${toolName}":\n${z.prettifyError(parsed.error)}`);
      const context = Context.current();
      if (context.info.attempt > 1 && !tool.idempotent) {
        // The first attempt was cut off (worker gone, timeout) and may have taken effect already.
        return errorText(
          `The ${toolName} call was interrupted before it finished (its worker stopped or it timed out) and was ` +
            `not run again, because ${toolName} is not safe to repeat. It may or may not have taken effect; check before trying again.`,
        );
      }
      // Beat well inside the heartbeat timeout, so only a dead worker misses it.
      const interval = Math.max(100, Math.min(heartbeatIntervalMs, (context.info.heartbeatTimeoutMs ?? 30_000) / 3));
      const heartbeat = setInterval(() => context.heartbeat(), interval);
      try {
        const output = await tool.execute(parsed.data, {
          toolCallId,
          abortSignal: context.cancellationSignal,
          heartbeat: (details) => context.heartbeat(details),
        });
        if (tool.outputFormat !== 'tool-result') return toToolResultOutput(output);
        const checked = toolResultOutputSchema.safeParse(output);
        return checked.success
          ? checked.data
          : errorText(`Tool "${toolName}" returned an output the model cannot read.`);
      } catch (error) {
        if (context.cancellationSignal.aborted) throw error;
        return errorText(error instanceof Error ? error.message : String(error));
      } finally {
        clearInterval(heartbeat);
      }
    },

    // The authority on a tool's input is its own schema, here on the worker; the gateway does not hold the tools.
    async validateToolInput({ toolName, input }: ValidateToolInputInput) {
      const tool = registry.get(toolName);
      if (!tool) return { valid: false as const, error: `Unknown tool "${toolName}": its input cannot be checked.` };
      if (!tool.execute) {
        return {
          valid: false as const,
          error: `Tool "${toolName}" is run by a client, not by the worker; its input cannot be edited on approval.`,
        };
      }
      const parsed = tool.inputSchema.safeParse(input);
      if (!parsed.success) {
        return {
          valid: false as const,
          error: `The edited input does not fit tool "${toolName}":\n${z.prettifyError(parsed.error)}`,
        };
      }
      return { valid: true as const };
    },

    async validateToolOutput({ toolName, output, error }: ValidateToolOutputInput) {
      if (error !== undefined) return { valid: true as const, output: errorText(error) };
      const schema = registry.get(toolName)?.outputSchema;
      if (!schema) return { valid: true as const, output: toToolResultOutput(output) };
      const parsed = schema.safeParse(output);
      if (!parsed.success) {
        return {
          valid: false as const,
          error: `Invalid output for tool "${toolName}":\n${z.prettifyError(parsed.error)}`,
        };
      }
      return { valid: true as const, output: toToolResultOutput(parsed.data) };
    },
  };
}

function toToolResultOutput(output: unknown): ToolResultOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  if (output === undefined) return { type: 'text', value: '' };
  // Round-trip through JSON so what the model and the history get is plain data.
  return { type: 'json', value: JSON.parse(JSON.stringify(output)) };
}
