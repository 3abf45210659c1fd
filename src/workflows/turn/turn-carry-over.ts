import { workflowInfo } from '@temporalio/workflow';
import type { ModelMessage, PlannedToolCall, ToolResultPart, TranscriptPointer, TurnSettings } from '../../protocol';
import type { ClientToolOutputsSnapshot } from '../approvals/client-tool-outputs';
import type { ApprovedPlanEntry } from './approved-plans';
import type { TurnApprovalsSnapshot } from '../approvals/turn-approvals';
import type { TurnEventLogSnapshot } from '../visibility/turn-event-log';
import type { FollowedNoticeSnapshot } from '../approvals/turn-notices';

/**
 * The calls a turn was settling when it continued as new: a model step's (`step`), or those a halted turn's
 * messages left open (`resumed`). `results` holds one entry per call: null while it waits (for a decision or a
 * client's output), `{}` when settled without a result of its own (a provider's call), `{ part }` when settled.
 */
export interface SettlingCalls {
  kind: 'step' | 'resumed';
  plans: PlannedToolCall[];
  /** The approval each call opened (null for none). */
  opened: Array<string | null>;
  results: Array<{ part?: ToolResultPart } | null>;
}

/** Everything a turn holds, carried into the run it continues as: nothing a person did or saw is lost. */
export interface TurnCarryOver {
  /** The shape of this object, should it ever change. */
  version: 1;
  settings: TurnSettings;
  steps: number;
  text: string;
  messages: ModelMessage[];
  transcript: TranscriptPointer;
  approvals: TurnApprovalsSnapshot;
  events: TurnEventLogSnapshot;
  outputs: ClientToolOutputsSnapshot;
  notices: FollowedNoticeSnapshot[];
  settling: SettlingCalls;
  /** How many times the turn has continued as new. */
  continuations: number;
  /** The entries of the plans approved in this turn (turn revision 12). */
  plans?: ApprovedPlanEntry[];
  /** Its sub-agents' model calls and how many it started (turn revision 14; none when absent). */
  subAgents?: { steps: number; started: number };
}

/**
 * The carry-over a run may take up: only one the server started by continuing this workflow as new. A turn
 * started by a caller with a second argument has none (its caller wrote it, and a caller's word never
 * decides an approval), and it is reported rather than followed.
 */
export function carryOverOf(carried: unknown): { carried?: TurnCarryOver; refused?: string } {
  if (carried === undefined || carried === null) return {};
  if (workflowInfo().continuedFromExecutionRunId === undefined) {
    return { refused: 'a carry-over was given to a turn that did not continue as new; it is not taken up' };
  }
  const version = (carried as { version?: unknown }).version;
  if (typeof carried !== 'object' || version !== 1)
    return { refused: 'a carry-over of an unknown shape is not taken up' };
  return { carried: carried as TurnCarryOver };
}
