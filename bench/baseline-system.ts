import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ApprovalSystem, BenchTurn } from './approval-system';
import type { DecisionChannel } from './bench-options';
import {
  baselineDecisionSignal,
  baselineDecisionUpdate,
  baselinePendingQuery,
  baselineWorkflowType,
  type baselineApproval,
} from './baseline-workflow';
import type { BenchWorkers } from './bench-workers';

/** The bare-Temporal baseline: start the workflow, query what it waits for, send the decision (signal or update). */
export class BaselineSystem implements ApprovalSystem {
  readonly name = 'baseline' as const;
  readonly key = 'baseline' as const;
  readonly label = 'baseline';

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    readonly worker: BenchWorkers,
    readonly decideBy: DecisionChannel,
  ) {}

  async start(key: string): Promise<BenchTurn> {
    const workflowId = workflowIdOf(key);
    await this.client.workflow.start<typeof baselineApproval>(baselineWorkflowType, {
      taskQueue: this.taskQueue,
      workflowId,
      args: [{ turn: key }],
    });
    return { key, workflowId };
  }

  async pendingApproval(turn: BenchTurn): Promise<string | undefined> {
    const pending = await this.handle(turn).query(baselinePendingQuery);
    return pending[0]?.approvalId;
  }

  async approve(turn: BenchTurn, approvalId: string): Promise<void> {
    const decision = { approvalId, approved: true };
    if (this.decideBy === 'signal') await this.handle(turn).signal(baselineDecisionSignal, decision);
    else if (!(await this.handle(turn).executeUpdate(baselineDecisionUpdate, { args: [decision] }))) {
      throw new Error(`baseline ${turn.workflowId} did not record the decision`);
    }
  }

  async finished(turn: BenchTurn): Promise<void> {
    const result = await this.handle(turn).result();
    if (result !== 'done') throw new Error(`baseline ${turn.workflowId} ended with ${JSON.stringify(result)}`);
  }

  handle(turn: BenchTurn): WorkflowHandle<typeof baselineApproval> {
    return this.client.workflow.getHandle<typeof baselineApproval>(turn.workflowId);
  }
}

/** Workflow ids from turn keys such as `[bench-baseline-latency-3]`. */
export function workflowIdOf(key: string): string {
  return key.replace(/[[\]]/g, '');
}
