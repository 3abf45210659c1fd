import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { errorText, type ToolResultOutput } from '../protocol';
import type { ToolRegistry } from '../tools';
import type {
  ExecuteToolInput,
  InspectToolCallsInput,
  TollgateActivities,
  ToolApprovalPolicy,
  ToolCallInspection,
  ValidateToolOutputInput,
} from './activity-types';

const heartbeatIntervalMs = 5_000;

/** The activities that describe, check and run the worker's tools. */
export function createToolActivities(
  registry: ToolRegistry,
  policy?: ToolApprovalPolicy,
): Omit<TollgateActivities, 'callModel' | 'notifyApproval' | 'awaitTurnOutcome'> {
  return {
    async describeTools(names) {
      try {
        return registry.manifest(names);
      } catch (error) {
        // A turn that names a tool the worker lacks is the caller's mistake: fail it clearly, once.
        throw ApplicationFailure.nonRetryable((error as Error).message, 'UnknownTool');
      }
    },

    async inspectToolCalls({ calls, messages, tools }: InspectToolCallsInput): Promise<ToolCallInspection[]> {
      const offered = new Set(tools);
      return Promise.all(
        calls.map(async (call): Promise<ToolCallInspection> => {
          const tool = offered.has(call.toolName) ? registry.get(call.toolName) : undefined;
          if (!tool) {
            return {
              toolCallId: call.toolCallId,
              status: 'invalid',
              error: `Unknown tool "${call.toolName}". Available tools: ${tools.join(', ') || 'none'}.`,
            };
          }
          const parsed = tool.inputSchema.safeParse(call.input);
          if (!parsed.success) {
            return {
              toolCallId: call.toolCallId,
              status: 'invalid',
              error: `Invalid input for tool "${call.toolName}":\n${z.prettifyError(parsed.error)}`,
            };
          }
          if (typeof tool.needsApproval !== 'function') return { toolCallId: call.toolCallId, status: 'valid' };
          try {
            const needsApproval = await tool.needsApproval(parsed.data, { toolCallId: call.toolCallId, messages });
            return { toolCallId: call.toolCallId, status: 'valid', needsApproval: needsApproval === true };
          } catch (error) {
            // A rule that cannot answer must not wave a call through: ask a person instead.
            Context.current().log.warn('needsApproval threw; asking for approval', {
              toolName: call.toolName,
              error: (error as Error).message,
            });
            return { toolCallId: call.toolCallId, status: 'valid', needsApproval: true };
          }
        }),
      );
    },

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
        return toToolResultOutput(output);
      } catch (error) {
        if (context.cancellationSignal.aborted) throw error;
        return errorText(error instanceof Error ? error.message : String(error));
      } finally {
        clearInterval(heartbeat);
      }
    },

    async decideByPolicy(requests) {
      return Promise.all(
        requests.map(async (request) => {
          if (!policy) return { approvalId: request.approvalId, decision: 'ask' as const };
          const answer = await policy(request);
          const { decision, reason } = typeof answer === 'string' ? { decision: answer, reason: undefined } : answer;
          if (decision !== 'approve' && decision !== 'deny' && decision !== 'ask') {
            // A policy that answers nonsense must not decide: leave it to a person.
            return { approvalId: request.approvalId, decision: 'ask' as const };
          }
          return { approvalId: request.approvalId, decision, ...(reason !== undefined && { reason }) };
        }),
      );
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
