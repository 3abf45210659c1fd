import type { Client } from '@temporalio/client';
import type { DecisionChannel } from './bench-options';
import {
  baselineDecisionSignal,
  baselineDecisionUpdate,
  baselinePendingQuery,
  baselineWorkflowType,
  type baselineApproval,
} from './baseline-workflow';
import type { BenchWorkers } from './bench-workers';
import { PlainWorkflowSystem } from './plain-workflow-system';

/** The bare-Temporal baseline: start the workflow, query what it waits for, send the decision (signal or update). */
export class BaselineSystem extends PlainWorkflowSystem {
  readonly name = 'baseline' as const;
  readonly key = 'baseline' as const;
  readonly label = 'baseline';

  constructor(client: Client, taskQueue: string, worker: BenchWorkers, decideBy: DecisionChannel) {
    super(client, taskQueue, worker, decideBy, {
      type: baselineWorkflowType,
      decisionSignal: baselineDecisionSignal,
      decisionUpdate: baselineDecisionUpdate,
      pendingQuery: baselinePendingQuery,
      result: 'done',
    });
  }

  protected async argumentsFor(key: string): Promise<Parameters<typeof baselineApproval>> {
    return [{ turn: key }];
  }
}
