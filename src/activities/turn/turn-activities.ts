import { Context } from '@temporalio/activity';
import type { ModelMessage } from '../../protocol';
import { runModelStep } from './model-step';
import { planResumedCalls } from '../planning/plan-resumed-calls';
import { runTool } from '../tools/run-tool';
import { StepHeartbeat } from '../model/step-heartbeat';
import type { TurnActivities } from '../turn-activity-types';
import type { TurnActivityDependencies } from '../turn-activity-dependencies';

export type { TurnActivityDependencies } from '../turn-activity-dependencies';

/**
 * The activities of a turn: one model step (check, call, plan: `model-step.ts`), resumed calls
 * (`plan-resumed-calls.ts`), and tool runs (`run-tool.ts`). Only the model step and resumed-call planning hold the
 * tools, the operator's policy and the secrets; this assembly adds the heartbeat that keeps a long step alive.
 */
export function createTurnActivities(dependencies: TurnActivityDependencies): TurnActivities {
  return {
    async runModelStep(input) {
      const heartbeat = StepHeartbeat.current();
      const stop = heartbeat.keepAlive();
      try {
        return await runModelStep(dependencies, input, heartbeat);
      } finally {
        stop();
      }
    },

    runTool: (call) => runTool(dependencies, call),

    async runToolThenModelStep({ call, toolMessage, step }) {
      const heartbeat = StepHeartbeat.current();
      // A retry after the checkpoint reached the server does not run the tool again; one before it is an
      // interrupted tool call like any other (a tool not safe to repeat is refused, with a reason the model reads).
      const result = heartbeat.checkpointed(call.toolCallId) ?? (await runTool(dependencies, call));
      heartbeat.checkpoint([result]);
      const stop = heartbeat.keepAlive();
      const message: ModelMessage = { role: 'tool', content: [...toolMessage.before, result, ...toolMessage.after] };
      try {
        const next = await runModelStep(
          dependencies,
          { ...step, transcript: { ...step.transcript, tail: [...step.transcript.tail, message] } },
          heartbeat,
        );
        return { result, step: next };
      } catch (error) {
        if (Context.current().cancellationSignal.aborted) throw error;
        // The tool's result must reach the turn whatever the model does: the turn calls the model again in an
        // activity of its own, with the model step's retry policy.
        return { result, modelFailure: error instanceof Error ? error.message : String(error) };
      } finally {
        stop();
      }
    },

    planResumedCalls: (input) => planResumedCalls(dependencies, input),
  };
}
