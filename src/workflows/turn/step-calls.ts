import type { PlannedToolCall, ToolCallPart, ToolResultOutput, ToolResultPart, TurnSettings } from '../../protocol';
// Not from the protocol's index, which builds every zod schema in each workflow's module scope.
import { errorText, executionDenied } from '../../protocol/denial-and-error-outputs';
import { toolSummary } from '../visibility/describe-turn';
import { runToolInput, toolFinished } from './settle-step';
import { runSubAgent } from './sub-agent';
import { toolRunner } from './turn-activity-options';
import { type Settled, type Settling, type TurnState, unsettled, withNextStep } from './turn-state';

/**
 * The calls of one model step as the turn settles them from turn revision 19. A call that waits for a person — for its
 * decision, or for a client's output — makes no promise while it waits: the turn waits for all of its calls in one
 * `condition` on {@link moved}, and {@link advance} takes every call as far as it goes without waiting, synchronously,
 * each time something moved. Only what runs (a tool's activity, a sub-agent) and an approval's expiry timer are
 * promises. The workflow sandbox records a stack for every promise workflow code creates, and `settle`'s promise, its
 * await of `TurnApprovals.decision` and that one's `condition`, per call, made the workflow task that opens an approval
 * create three times the hand-written loop's promises (docs/performance.md). The watch for a large history, under which
 * the turn continues as new while its calls only wait, stays beside this in the turn: it reads the SDK's state.
 *
 * @example
 * const calls = new StepCalls(turn, settling);
 * while (calls.advance()) await condition(calls.moved);
 * const results = calls.results(); // in order: a result part, undefined (a provider's call) or `withNextStep`
 */
export class StepCalls {
  /** Calls past their wait for a decision (or that had none to wait for). */
  private readonly started: boolean[];
  /** Calls waiting for a client's output. */
  private readonly awaitingOutput: boolean[];
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly turn: TurnState,
    private readonly settling: Settling,
  ) {
    // A call an earlier run left waiting for a client's output has its decision and its start recorded.
    this.awaitingOutput = settling.plans.map((plan, index) => isOpen(settling, index) && turn.awaitsOutput(plan));
    this.started = [...this.awaitingOutput];
    // Expiry timers first, in the order of the calls; `advance` then starts what needs no person.
    settling.plans.forEach((_, index) => {
      const approvalId = this.awaitedDecision(index);
      if (approvalId !== undefined && !turn.approvals.book.decisionOf(approvalId)) {
        turn.approvals.expireUnlessDecided(approvalId, this.fail);
      }
    });
  }

  /**
   * Takes each call as far as it goes now: a decided call is noted and shown decided, then denied, or its tool, its
   * sub-agent or its client's output started; a call whose output came is settled. True while a call is not settled.
   * Throws the error of a call that failed (as `Promise.all` did), or of an expiry that fails the turn.
   */
  advance(): boolean {
    const { plans } = this.settling;
    for (let index = 0; index < plans.length && !this.failure; index++) {
      if (isOpen(this.settling, index)) this.takeOn(index);
    }
    if (this.failure) throw this.failure.error;
    return this.settling.results.some((result) => result === unsettled);
  }

  /**
   * The step's wait, a `condition`'s predicate: true once {@link advance} has something to do — a decision or a
   * client's output came, a call failed, all are settled. Read from state only: it is asked after every activation.
   */
  readonly moved = (): boolean => {
    if (this.failure) return true;
    let open = false;
    for (let index = 0; index < this.settling.plans.length; index++) {
      if (!isOpen(this.settling, index)) continue;
      if (this.canMove(index)) return true;
      open = true;
    }
    return !open;
  };

  /** Each call's result, in order (once {@link advance} says none is open). */
  results(): Settled[] {
    return this.settling.results.slice() as Settled[];
  }

  private readonly fail = (error: unknown): void => {
    this.failure ??= { error };
  };

  /** The approval call `index` waits for before anything of it runs, if any (as `settle` awaited it). */
  private awaitedDecision(index: number): string | undefined {
    const plan = this.plan(index);
    if (!isOpen(this.settling, index) || this.started[index]) return undefined;
    if (plan.kind === 'provider') return plan.approval.approvalId;
    return plan.kind === 'ask' ? this.settling.opened[index] : undefined;
  }

  private canMove(index: number): boolean {
    const { call } = this.plan(index);
    if (this.awaitingOutput[index]) return this.turn.outputs.outputOf(call.toolCallId) !== undefined;
    if (this.started[index]) return false;
    const approvalId = this.awaitedDecision(index);
    return approvalId === undefined || this.turn.approvals.book.decisionOf(approvalId) !== undefined;
  }

  private takeOn(index: number): void {
    if (!this.canMove(index)) return;
    const { call } = this.plan(index);
    if (this.awaitingOutput[index]) {
      this.awaitingOutput[index] = false;
      this.finish(index, resultOf(call, this.turn.outputs.outputOf(call.toolCallId) as ToolResultOutput));
      return;
    }
    const approvalId = this.awaitedDecision(index);
    this.started[index] = true;
    try {
      this.start(index, approvalId);
    } catch (error) {
      this.fail(error);
    }
  }

  /** What `settle` did once the call's decision was in: the same notes, details and results, without its awaits. */
  private start(index: number, decided: string | undefined): void {
    const { turn } = this;
    const plan = this.plan(index);
    const { call } = plan;
    if (plan.kind === 'provider') {
      // The provider runs it; the decision goes back to it with the next model call.
      turn.approvals.decided(plan.approval.approvalId);
      turn.showDecided();
      return this.settle(index, undefined);
    }
    if (plan.kind === 'reject') return this.settle(index, resultOf(call, errorText(plan.error)));
    const approvalId = this.settling.opened[index];
    if (plan.kind === 'ask' && decided !== undefined) {
      const decision = turn.approvals.decided(decided);
      turn.showDecided();
      if (decision.decision !== 'approved') return this.settle(index, resultOf(call, executionDenied(decision.reason)));
      // An approved plan runs nothing: its calls run as the model makes them.
      if (plan.proposal) return this.finish(index, resultOf(call, turn.plans.adopt(plan, decision)));
    }
    turn.events.note('tool-started', turn.steps, { toolCallId: call.toolCallId, toolName: call.toolName });
    if (plan.agent) {
      const input = runToolInput(turn, call, approvalId).input;
      runSubAgent(turn, plan.agent, input, call.toolCallId).then(
        (output) => this.finish(index, resultOf(call, output)),
        this.fail,
      );
    } else if (plan.executor === 'client') {
      turn.outputs.expect(call);
      turn.visibility.refresh();
      this.awaitingOutput[index] = true;
    } else if (this.isLast()) {
      this.settle(index, withNextStep);
    } else {
      this.runTool(index, call, approvalId);
    }
  }

  /** Runs the worker's tool in an activity of its own, shown as running on the Temporal UI meanwhile. */
  private runTool(index: number, call: ToolCallPart, approvalId: string | undefined): void {
    const { turn } = this;
    const input = runToolInput(turn, call, approvalId);
    turn.visibility.toolStarted(call.toolCallId, call);
    const ended = () => turn.visibility.toolEnded(call.toolCallId);
    try {
      toolRunner(turn.settings as TurnSettings, {
        turnSetsLength: turn.input.toolTimeouts?.startToClose !== undefined,
        // What runs: the approver's edited input when there is one.
        summary: toolSummary(call.toolName, input.input),
      })
        .runTool(input)
        .then(
          (part) => {
            ended();
            this.finish(index, part);
          },
          (error: unknown) => {
            ended();
            this.fail(error);
          },
        );
    } catch (error) {
      ended();
      throw error;
    }
  }

  /**
   * Whether the worker's tool about to run is left to run with the next model step: the step's last open call, model
   * steps as activities, and a next step to come.
   */
  private isLast(): boolean {
    const open = this.settling.results.filter((result) => result === unsettled).length;
    return this.turn.input.modelSteps !== 'local' && open === 1 && this.turn.nextStepFollows();
  }

  /** Settles a call whose tool, sub-agent or client gave its result: shown and noted as finished. */
  private finish(index: number, part: ToolResultPart): void {
    toolFinished(this.turn, part);
    this.settle(index, part);
  }

  private settle(index: number, result: Settled): void {
    this.settling.results[index] = result;
  }

  private plan(index: number): PlannedToolCall {
    return this.settling.plans[index] as PlannedToolCall;
  }
}

function isOpen(settling: Settling, index: number): boolean {
  return settling.results[index] === unsettled;
}

function resultOf(call: ToolCallPart, output: ToolResultOutput): ToolResultPart {
  return { type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output };
}
