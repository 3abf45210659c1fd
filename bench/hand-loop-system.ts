import type { Client, WorkflowHandle } from '@temporalio/client';
import type { BenchModel } from './model-process';
import type { ApprovalSystem, BenchTurn } from './approval-system';
import type { DecisionChannel } from './bench-options';
import type { BenchWorkers } from './bench-workers';
import { workflowIdOf } from './baseline-system';
import { benchToolNames } from './bench-tools';
import {
  handLoopDecisionSignal,
  handLoopDecisionUpdate,
  handLoopPendingQuery,
  handLoopWorkflowType,
  type handWrittenAgentLoop,
} from './hand-loop-workflow';

/**
 * The hand-written agent loop (hand-loop-workflow.ts): the same model replies, tool and wait as a Tollgate turn,
 * started, queried and decided with the plain Temporal client.
 */
export class HandLoopSystem implements ApprovalSystem {
  readonly name = 'handLoop' as const;
  readonly key = 'handLoop' as const;
  readonly label = 'hand-written loop';

  constructor(
    private readonly client: Client,
    private readonly model: BenchModel,
    private readonly taskQueue: string,
    readonly worker: BenchWorkers,
    readonly decideBy: DecisionChannel,
  ) {}

  async start(key: string): Promise<BenchTurn> {
    // The replies Tollgate's turn gets: one call of the tool that needs approval, then a final answer.
    await this.model.scriptFor(
      key,
      { toolCalls: [{ name: benchToolNames.approve, arguments: { turn: key } }] },
      { text: 'ok' },
    );
    const workflowId = workflowIdOf(key);
    await this.client.workflow.start<typeof handWrittenAgentLoop>(handLoopWorkflowType, {
      taskQueue: this.taskQueue,
      workflowId,
      args: [{ messages: [{ role: 'user', content: `${key} do the action` }] }],
    });
    return { key, workflowId };
  }

  async pendingApproval(turn: BenchTurn): Promise<string | undefined> {
    const pending = await this.handle(turn).query(handLoopPendingQuery);
    return pending[0]?.approvalId;
  }

  async approve(turn: BenchTurn, approvalId: string): Promise<void> {
    const decision = { approvalId, approved: true };
    if (this.decideBy === 'signal') await this.handle(turn).signal(handLoopDecisionSignal, decision);
    else if (!(await this.handle(turn).executeUpdate(handLoopDecisionUpdate, { args: [decision] }))) {
      throw new Error(`hand-written loop ${turn.workflowId} did not record the decision`);
    }
  }

  async finished(turn: BenchTurn): Promise<void> {
    const result = await this.handle(turn).result();
    if (result !== 'ok') throw new Error(`hand-written loop ${turn.workflowId} ended with ${JSON.stringify(result)}`);
  }

  handle(turn: BenchTurn): WorkflowHandle<typeof handWrittenAgentLoop> {
    return this.client.workflow.getHandle<typeof handWrittenAgentLoop>(turn.workflowId);
  }
}
