import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  agentTurnInputSchema,
  durationToMilliseconds,
  type AgentTurnInput,
  type Duration,
  type ModelMessage,
  type TurnSettings,
  turnRevisions,
} from '../../protocol';
import type { TurnOptions } from '../turn-activity-types';
import type { TurnActivityDependencies } from '../turn-activity-dependencies';

/** A turn's input as a step checks it: later steps carry only what the turn wrote since, which may be nothing. */
const turnInputSchema = agentTurnInputSchema.extend({ messages: agentTurnInputSchema.shape.messages.unwrap().array() });

/** A checked turn input, the settings the turn runs by, and the tools it offers the model. */
export interface CheckedTurnInput {
  input: AgentTurnInput;
  settings: TurnSettings;
  /** Names of the tools the turn offers, as the registry knows them. */
  offered: string[];
}

/**
 * Checks a turn's options and messages (the caller's on the first step, the turn's own later) and settles the settings
 * the turn runs by: defaults filled in, the operator's decision trust and activity limits, the current revision. A
 * turn the worker cannot run — invalid input, `autoApprove` the operator does not allow, an unknown tool — fails at
 * once with a non-retryable failure that says why.
 *
 * @example
 * const { input, settings, offered } = checkTurnInput(options, messages, { registry, policy });
 */
export function checkTurnInput(
  options: TurnOptions,
  messages: ModelMessage[],
  { registry, policy, activityLimits }: Pick<TurnActivityDependencies, 'registry' | 'policy' | 'activityLimits'>,
  /**
   * `alreadyChecked`: a later step of a turn whose first step checked these options (workflow code hands them back
   * unchanged, with messages the turn wrote itself), so the schema is not walked again; the operator's rules are.
   */
  { alreadyChecked = false }: { alreadyChecked?: boolean } = {},
): CheckedTurnInput {
  const input = alreadyChecked ? ({ ...options, messages } as AgentTurnInput) : parseTurnInput(options, messages);
  if (input.autoApprove && !policy.allowAutoApprove) {
    throw ApplicationFailure.nonRetryable(
      "This turn asks for autoApprove, which the worker's operator does not allow (set allowAutoApprove in the policy, or TOLLGATE_ALLOW_AUTO_APPROVE=true).",
      'AutoApproveNotAllowed',
    );
  }
  let offered: string[];
  try {
    offered = registry.manifest(input.tools).map((tool) => tool.name);
  } catch (error) {
    throw ApplicationFailure.nonRetryable((error as Error).message, 'UnknownTool');
  }
  const keys = policy.decisions?.trustedKeys ?? {};
  const settings: TurnSettings = {
    maxSteps: input.maxSteps ?? 10,
    approvalWait: input.approvalWait ?? 'durable',
    autoApprove: input.autoApprove === true,
    toolTimeouts: {
      heartbeatMs: durationOr(input.toolTimeouts?.heartbeat, 30_000),
      startToCloseMs: durationOr(input.toolTimeouts?.startToClose, 600_000),
    },
    trust: { requireSigned: policy.decisions?.requireSigned ?? Object.keys(keys).length > 0, keys },
    ...(activityLimits && { activities: activityLimits }),
    revision: turnRevisions.current,
  };
  return { input, settings, offered };
}

function parseTurnInput(options: TurnOptions, messages: ModelMessage[]): AgentTurnInput {
  const parsed = turnInputSchema.safeParse({ ...options, messages });
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(
      `Invalid agentTurn input: ${z.prettifyError(parsed.error)}`,
      'InvalidAgentTurnInput',
    );
  }
  return parsed.data;
}

function durationOr(value: Duration | undefined, fallback: number): number {
  return value === undefined ? fallback : durationToMilliseconds(value);
}
