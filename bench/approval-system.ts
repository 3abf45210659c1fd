import type { WorkflowHandle } from '@temporalio/client';
import type { DecisionChannel } from './bench-options';
import type { BenchWorkers } from './bench-workers';
import type { BenchSystem } from './worker-messages';

/** One started turn that will wait for one approval. */
export interface BenchTurn {
  /** Marks the turn in the model's script and in the tool's input; the worker reports tool starts by it. */
  key: string;
  /** The workflow's id. */
  workflowId: string;
}

/**
 * Whose figures a system's measurements are: the bare baseline's, the hand-written loop's, Tollgate's, or Tollgate's
 * with local model steps.
 */
export type FiguresKey = 'baseline' | 'handLoop' | 'tollgate' | 'tollgateLocalSteps';

/** What the benchmark does to a system under test: Tollgate, the hand-written loop, or the bare-Temporal baseline. */
export interface ApprovalSystem {
  /** Which worker runs it. */
  readonly name: BenchSystem;
  /** Whose figures it measures; also names its turns. */
  readonly key: FiguresKey;
  /** For progress lines. */
  readonly label: string;
  /** How {@link approve} sends the decision. */
  readonly decideBy: DecisionChannel;
  /** Its worker processes (one, or several on one task queue for the scale-out figure). */
  readonly worker: BenchWorkers;
  /** Starts a turn that will ask for one approval. */
  start(key: string): Promise<BenchTurn>;
  /** The approvalId once the turn waits for it, or undefined while it does not wait yet. */
  pendingApproval(turn: BenchTurn): Promise<string | undefined>;
  /** Approves. */
  approve(turn: BenchTurn, approvalId: string): Promise<void>;
  /** Resolves when the turn has ended as it should; rejects otherwise. */
  finished(turn: BenchTurn): Promise<void>;
  /** The workflow's handle, for its history. */
  handle(turn: BenchTurn): WorkflowHandle;
}

/** Workflow ids from turn keys such as `[bench-baseline-latency-3]`. */
export function workflowIdOf(key: string): string {
  return key.replace(/[[\]]/g, '');
}
