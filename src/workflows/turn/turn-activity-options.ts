import { type LocalActivityOptions, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { TollgateActivities } from '../../activities/activity-types';
import type { TurnActivities } from '../../activities/turn-activity-types';
import type { AgentTurnInput, TurnSettings } from '../../protocol';

/** How long one model step may take unless the worker's owner says otherwise. */
const modelStepStartToCloseMs = 180_000;

/**
 * The model-step activities, with the worker owner's limits once they are known (from the first step on):
 * activities, or local activities for a turn that asked for `modelSteps: 'local'`.
 */
export function modelSteps(
  input: Pick<AgentTurnInput, 'modelSteps'>,
  settings?: TurnSettings,
  /** What the Temporal UI's timeline calls the activity: `model step 3`. */
  summary?: string,
): Pick<TurnActivities, 'runModelStep' | 'planResumedCalls'> {
  const limits = settings?.activities?.modelStep;
  const common: LocalActivityOptions = {
    ...(summary !== undefined && { summary }),
    startToCloseTimeout: limits?.startToCloseMs ?? modelStepStartToCloseMs,
    // 4xx answers other than 429 come back as ModelRequestRejected: retrying them cannot help.
    retry: {
      initialInterval: '1s',
      maximumInterval: '1m',
      maximumAttempts: limits?.maximumAttempts ?? 10,
      nonRetryableErrorTypes: ['ModelRequestRejected', 'InvalidAgentTurnInput', 'UnknownTool', 'AutoApproveNotAllowed'],
    },
  };
  // The input is checked in the first model step; until then anything but 'local' means an activity.
  if (input.modelSteps === 'local') return proxyLocalActivities<TurnActivities>(common);
  // The model step heartbeats its streamed progress; a dead worker is noticed in seconds.
  return proxyActivities<TurnActivities>({ ...common, heartbeatTimeout: '30s' });
}

/** Checks a client tool's output against the tool's output schema (the schema lives on the worker). */
export const { validateToolOutput, validateToolInput } = proxyActivities<TollgateActivities>({
  startToCloseTimeout: '1m',
  retry: { maximumAttempts: 5 },
});

/**
 * Runs tools. The activity heartbeats while a tool runs, so a dead worker is noticed in seconds, not minutes. With
 * `thenModelStep` the activity runs the next model step after the tool, and may take as long as both.
 */
export function toolRunner(
  settings: TurnSettings,
  options: { turnSetsLength: boolean; thenModelStep?: boolean; summary?: string },
): TurnActivities {
  const limits = settings.activities?.tool;
  const toolMs = options.turnSetsLength
    ? settings.toolTimeouts.startToCloseMs
    : (limits?.startToCloseMs ?? settings.toolTimeouts.startToCloseMs);
  const modelStepMs = options.thenModelStep
    ? (settings.activities?.modelStep?.startToCloseMs ?? modelStepStartToCloseMs)
    : 0;
  return proxyActivities<TurnActivities>({
    ...(options.summary !== undefined && { summary: options.summary }),
    startToCloseTimeout: toolMs + modelStepMs,
    heartbeatTimeout: settings.toolTimeouts.heartbeatMs,
    retry: { maximumAttempts: limits?.maximumAttempts ?? 3 },
  });
}
