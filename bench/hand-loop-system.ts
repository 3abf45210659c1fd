import type { Client, WorkflowStartOptions } from '@temporalio/client';
import { pendingApprovalsSearchAttribute } from '../src/workflows/definitions';
import type { BenchModel } from './model-process';
import type { DecisionChannel } from './bench-options';
import type { BenchWorkers } from './bench-workers';
import { benchToolNames } from './bench-tools';
import {
  handLoopDecisionSignal,
  handLoopDecisionUpdate,
  handLoopPendingQuery,
  handLoopWorkflowType,
  type handWrittenAgentLoop,
} from './hand-loop-workflow';
import { PlainWorkflowSystem } from './plain-workflow-system';

/**
 * The hand-written agent loop (hand-loop-workflow.ts): the same model replies, tool and wait as a Tollgate turn,
 * started, queried and decided with the plain Temporal client.
 */
export class HandLoopSystem extends PlainWorkflowSystem {
  readonly name = 'handLoop' as const;
  readonly key = 'handLoop' as const;
  readonly label = 'hand-written loop';

  constructor(
    client: Client,
    private readonly model: BenchModel,
    taskQueue: string,
    worker: BenchWorkers,
    decideBy: DecisionChannel,
  ) {
    super(client, taskQueue, worker, decideBy, {
      type: handLoopWorkflowType,
      decisionSignal: handLoopDecisionSignal,
      decisionUpdate: handLoopDecisionUpdate,
      pendingQuery: handLoopPendingQuery,
      result: 'ok',
    });
  }

  protected async argumentsFor(key: string): Promise<Parameters<typeof handWrittenAgentLoop>> {
    // The replies Tollgate's turn gets: one call of the tool that needs approval, then a final answer.
    await this.model.scriptFor(
      key,
      { toolCalls: [{ name: benchToolNames.approve, arguments: { turn: key } }] },
      { text: 'ok' },
    );
    return [
      { messages: [{ role: 'user', content: `${key} do the action` }], ...(listsWaiting() && { listWaiting: true }) },
    ];
  }

  /** Listing its waiting approvals, the loop starts as a Tollgate turn does: with an empty list and a summary. */
  protected override startOptionsFor(key: string): Partial<WorkflowStartOptions> {
    if (!listsWaiting()) return {};
    return {
      typedSearchAttributes: [{ key: pendingApprovalsSearchAttribute, value: [] }],
      staticSummary: `${key} do the action`,
    };
  }
}

/** `BENCH_HAND_LOOP_LISTS_WAITING=1`: the hand-written loop keeps Tollgate's search attributes (hand-loop-workflow.ts). */
export function listsWaiting(): boolean {
  return process.env.BENCH_HAND_LOOP_LISTS_WAITING === '1';
}
