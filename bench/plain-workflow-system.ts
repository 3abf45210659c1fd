import type {
  Client,
  QueryDefinition,
  SignalDefinition,
  UpdateDefinition,
  WorkflowHandle,
  WorkflowStartOptions,
} from '@temporalio/client';
import { workflowIdOf, type ApprovalSystem, type BenchTurn, type FiguresKey } from './approval-system';
import type { DecisionChannel } from './bench-options';
import type { BenchWorkers } from './bench-workers';
import type { BenchSystem } from './worker-messages';

/** A decision on one approval, as the plain workflows take it (Tollgate's signal and update names). */
export interface PlainDecision {
  approvalId: string;
  approved: boolean;
}

/** What a plain workflow that waits for one approval is called by: its type, its messages, and its good result. */
export interface PlainApprovalWorkflow {
  /** The workflow type the bench starts. */
  type: string;
  /** The decision by signal. */
  decisionSignal: SignalDefinition<[PlainDecision]>;
  /** The decision by update: answers whether it decided an approval the workflow waits for. */
  decisionUpdate: UpdateDefinition<boolean, [PlainDecision]>;
  /** The approvals the workflow waits for. */
  pendingQuery: QueryDefinition<Array<{ approvalId: string }>>;
  /** What the workflow returns when the approved tool ran. */
  result: string;
}

/**
 * A system under test that is a plain Temporal workflow (the bare baseline, the hand-written loop): started, queried
 * and decided with the plain Temporal client. Each system says what its workflow is and what it starts with.
 */
export abstract class PlainWorkflowSystem implements ApprovalSystem {
  abstract readonly name: BenchSystem;
  abstract readonly key: FiguresKey;
  abstract readonly label: string;

  constructor(
    protected readonly client: Client,
    protected readonly taskQueue: string,
    readonly worker: BenchWorkers,
    readonly decideBy: DecisionChannel,
    private readonly workflow: PlainApprovalWorkflow,
  ) {}

  /** The workflow's arguments for the turn `key` (and whatever must be ready before it starts). */
  protected abstract argumentsFor(key: string): Promise<unknown[]>;

  /** More start options for the turn `key` (search attributes, a summary), if the system has any. */
  protected startOptionsFor(_key: string): Partial<WorkflowStartOptions> {
    return {};
  }

  async start(key: string): Promise<BenchTurn> {
    const args = await this.argumentsFor(key);
    const workflowId = workflowIdOf(key);
    await this.client.workflow.start(this.workflow.type, {
      ...this.startOptionsFor(key),
      taskQueue: this.taskQueue,
      workflowId,
      args,
    });
    return { key, workflowId };
  }

  async pendingApproval(turn: BenchTurn): Promise<string | undefined> {
    const pending = await this.handle(turn).query(this.workflow.pendingQuery);
    return pending[0]?.approvalId;
  }

  async approve(turn: BenchTurn, approvalId: string): Promise<void> {
    const decision = { approvalId, approved: true };
    if (this.decideBy === 'signal') await this.handle(turn).signal(this.workflow.decisionSignal, decision);
    else if (!(await this.handle(turn).executeUpdate(this.workflow.decisionUpdate, { args: [decision] }))) {
      throw new Error(`${this.label} ${turn.workflowId} did not record the decision`);
    }
  }

  async finished(turn: BenchTurn): Promise<void> {
    const result: unknown = await this.handle(turn).result();
    if (result !== this.workflow.result) {
      throw new Error(`${this.label} ${turn.workflowId} ended with ${JSON.stringify(result)}`);
    }
  }

  handle(turn: BenchTurn): WorkflowHandle {
    return this.client.workflow.getHandle(turn.workflowId);
  }
}
