import { deprecatePatch, patched, workflowInfo } from '@temporalio/workflow';

/**
 * What a worker does with executions that started before the v2 turn and conversation:
 * `run` finishes them on the frozen v1 code (each new execution records the v2 marker, 2 history events),
 * `retired` no longer carries the v1 code (new executions record no marker). The workflow bundle is built
 * for one of them; workers of both kinds must never poll the same task queue.
 */
export type V1Turns = 'run' | 'retired';

/** Patch ids: each guards a change for executions that were already running when it shipped. */
export const patches = {
  /**
   * The turn as split modules with one model-step activity, signed requests and decisions, and the
   * transcript in the content store. Executions started before it finish on the frozen v1 code.
   */
  turnV2: 'turn-v2',
  /** The conversation whose history lives in the content store. */
  conversationV2: 'conversation-v2',
} as const;

/**
 * Whether this execution runs the v2 code. With `run`, an execution that started before the patch
 * (no marker in its history) runs v1, and a new one records the marker (and Temporal's
 * `TemporalChangeVersion` search attribute with it: 2 history events).
 *
 * With `retired` every execution runs v2 and a new one records nothing. `deprecatePatch` alone would not do:
 * on a new execution it still records a (deprecated) marker and the search attribute. So the patch is only
 * called while replaying, where it issues a command only if the history holds the marker (an execution that
 * started on a `run` worker), which is what replaying that history needs.
 */
export function runsV2(patchId: (typeof patches)[keyof typeof patches], v1Turns: V1Turns): boolean {
  if (v1Turns === 'run') return patched(patchId);
  // Deterministic: on a live first task the history holds no marker and no command is due; on replay the
  // call issues the marker's command exactly when the history has the marker.
  if (workflowInfo().unsafe.isReplaying) deprecatePatch(patchId);
  return true;
}
