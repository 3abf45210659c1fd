import { deprecatePatch, workflowInfo } from '@temporalio/workflow';

/**
 * Patch ids today's code no longer branches on, kept because committed histories (and so, possibly, executions
 * started by a pre-release worker) recorded their markers: `turn-v2` and `conversation-v2` guarded the move from
 * the first turn and conversation to today's. The first code is gone; every execution runs today's.
 */
export const retiredPatches = {
  /** Recorded by turns a pre-release worker started (`test/histories/v2-*.json`). */
  turn: 'turn-v2',
  /** Recorded by conversations a pre-release worker started. */
  conversation: 'conversation-v2',
} as const;

/**
 * Answers a retired patch's marker where a history holds one, and records nothing on a new execution.
 *
 * Temporal requires workflow code to issue a patch's command wherever the history it replays holds that patch's
 * marker: drop the call and a history that has it fails replay. `deprecatePatch` alone would not do either: on a
 * new execution it records a (deprecated) marker and the `TemporalChangeVersion` search attribute, 2 history
 * events per turn for nothing. So it is called only while replaying, where it issues the command exactly when
 * the history has the marker. Deterministic: a live first task has no marker due, and on replay the call follows
 * the history. Call it first thing in the workflow, where the marker was recorded.
 */
export function answerRetiredPatch(patchId: (typeof retiredPatches)[keyof typeof retiredPatches]): void {
  if (workflowInfo().unsafe.isReplaying) deprecatePatch(patchId);
}
