import type { WorkflowHandle } from '@temporalio/client';
import type { TollgateClient } from '../src/client';
import type { BenchModel } from './model-process';
import { workflowIdOf, type ApprovalSystem, type BenchTurn } from './approval-system';
import type { DecisionChannel, ModelStepsMode } from './bench-options';
import { benchToolNames } from './bench-tools';
import type { BenchWorkers } from './bench-workers';

/**
 * Tollgate through its public client: `startTurn`, `pending`, and `decide` (update) or `sendDecision` (signal);
 * its turns run their model steps as activities (the default) or, with `modelSteps: 'local'`, as local activities.
 */
export class TollgateSystem implements ApprovalSystem {
  readonly name = 'tollgate' as const;
  readonly key;
  readonly label;

  constructor(
    private readonly tollgate: TollgateClient,
    private readonly model: BenchModel,
    readonly worker: BenchWorkers,
    readonly decideBy: DecisionChannel,
    private readonly modelSteps: ModelStepsMode = 'activity',
  ) {
    this.key = modelSteps === 'local' ? ('tollgateLocalSteps' as const) : ('tollgate' as const);
    this.label = modelSteps === 'local' ? 'tollgate (local model steps)' : 'tollgate';
  }

  async start(key: string): Promise<BenchTurn> {
    // One call of the tool that needs approval, then a final answer once its result is in.
    await this.model.scriptFor(
      key,
      { toolCalls: [{ name: benchToolNames.approve, arguments: { turn: key } }] },
      { text: 'ok' },
    );
    const workflowId = workflowIdOf(key);
    await this.tollgate.startTurn(
      {
        messages: [{ role: 'user', content: `${key} do the action` }],
        tools: [benchToolNames.approve],
        // The default turn input stays as a user sends it: the option only where it is measured.
        ...(this.modelSteps === 'local' && { modelSteps: 'local' as const }),
      },
      { workflowId },
    );
    return { key, workflowId };
  }

  async pendingApproval(turn: BenchTurn): Promise<string | undefined> {
    const pending = await this.tollgate.pending({ workflowId: turn.workflowId });
    return pending[0]?.approvalId;
  }

  async approve(_turn: BenchTurn, approvalId: string): Promise<void> {
    const decision = { approved: true, approver: 'bench' };
    if (this.decideBy === 'signal') await this.tollgate.sendDecision(approvalId, decision);
    else await this.tollgate.decide(approvalId, decision);
  }

  async finished(turn: BenchTurn): Promise<void> {
    const result = await this.tollgate.turn(turn.workflowId).result();
    if (result.status !== 'completed') throw new Error(`turn ${turn.workflowId} ended ${result.status}`);
  }

  handle(turn: BenchTurn): WorkflowHandle {
    return this.tollgate.turn(turn.workflowId);
  }
}
