import type {
  ModelStepOutput,
  RunToolInput,
  RunToolThenModelStepOutput,
  TurnActivities,
} from '../../activities/turn-activity-types';
import type { PlannedToolCall, ToolCallPart, ToolResultPart, TurnSettings } from '../../protocol';
import { toolSummary } from '../visibility/describe-turn';
import { runToolInput, toolFinished } from './settle-step';
import { toolRunner } from './turn-activity-options';
import type { Settled, Settling, TurnState } from './turn-state';

// The fused path of turn revision 3: a step's last worker tool and the next model step in one activity, so a decided
// call costs the server one activity and one workflow task, as in a bare workflow (24 events per approved call, not
// 30; see docs/performance.md). The tool's result is checkpointed in the activity's heartbeat, so a retry does not
// run it again. `retired-revision-3.json` in test/histories holds it.

/**
 * Runs the call `settleStep` left, then the next model step, in one activity; returns that step (undefined when
 * the model failed there, so the loop calls it again in an activity of its own).
 *
 * Not `async`, and no `async` helper under it: the sandbox records a stack for every promise workflow code creates
 * (docs/performance.md), and the two `async` layers this replaced cost four promises on the way from a decision to its
 * tool. The activity's result still takes the same two microtask turns to reach the caller (one `then` for each
 * layer), so that a notice's chain woken in the same workflow task issues its commands in the order that histories
 * recorded before this change hold: the commands and their order are those of every turn revision. From turn revision
 * 19 the turn awaits the activity itself, through {@link LastToolWithNextStep}, without these two `then`s.
 */
export function runLastToolWithNextStep(
  turn: TurnState,
  settling: Pick<Settling, 'plans' | 'opened'>,
  settled: Settled[],
  last: number,
): Promise<ModelStepOutput | undefined> {
  const run = new LastToolWithNextStep(turn, settling, settled, last);
  return run.running
    .then((ran) => run.took(ran))
    .then(
      (step) => {
        run.ended();
        return step;
      },
      (error: unknown) => {
        run.failed();
        throw error;
      },
    );
}

/**
 * The activity of {@link runLastToolWithNextStep}, the tool alone or the tool and the next model step, scheduled as it
 * is made; and what the turn does with its result. From turn revision 19 the turn awaits {@link running} itself:
 *
 * @example
 * const run = new LastToolWithNextStep(turn, settling, results, last);
 * try {
 *   next = run.took(await run.running);
 *   run.ended();
 * } catch (error) {
 *   run.failed();
 *   throw error;
 * }
 */
export class LastToolWithNextStep {
  /** The activity: the tool's result, or the tool's result and the next model step. */
  readonly running: Promise<ToolResultPart | RunToolThenModelStepOutput>;
  private readonly plans: PlannedToolCall[];
  private readonly opened: Array<string | undefined>;
  private readonly results: Array<ToolResultPart | undefined>;
  private readonly call: ToolCallPart;
  /** Whether the next model step runs in the activity (the turn goes on after this step). */
  private readonly follows: boolean;

  constructor(
    private readonly turn: TurnState,
    settling: Pick<Settling, 'plans' | 'opened'>,
    settled: Settled[],
    private readonly last: number,
  ) {
    this.plans = settling.plans;
    this.opened = settling.opened;
    this.results = settled as Array<ToolResultPart | undefined>;
    const { call } = this.plans[last] as PlannedToolCall;
    this.call = call;
    const follows = (this.follows = turn.nextStepFollows());
    const input = runToolInput(turn, call, this.opened[last]);
    const tool = toolSummary(call.toolName, input.input);
    const runs = toolRunner(turn.settings as TurnSettings, {
      turnSetsLength: turn.input.toolTimeouts?.startToClose !== undefined,
      thenModelStep: follows,
      summary: follows ? `${tool}, then model step ${turn.steps + 1}` : tool,
    });
    turn.visibility.toolStarted(call.toolCallId, call, follows ? turn.steps + 1 : undefined);
    try {
      this.running = follows ? this.runWithNextStep(runs, input) : runs.runTool(input);
    } catch (error) {
      turn.visibility.toolEnded(call.toolCallId);
      throw error;
    }
  }

  /** Takes the activity's result in: the call's result; the next model step, when it ran. */
  took(ran: ToolResultPart | RunToolThenModelStepOutput): ModelStepOutput | undefined {
    if (!this.follows) {
      this.results[this.last] = ran as ToolResultPart;
      return undefined;
    }
    const { result, step, modelFailure } = ran as RunToolThenModelStepOutput;
    this.results[this.last] = result;
    if (modelFailure !== undefined) {
      this.turn.events.note('model-step-retried', this.turn.steps + 1, {
        detail: `failed after ${this.call.toolName} had run (${modelFailure.slice(0, 300)}); called again on its own`,
      });
    }
    return step;
  }

  /** The call is done: shown and noted as finished, and the step's tool message written. */
  ended(): void {
    this.turn.visibility.toolEnded(this.call.toolCallId);
    toolFinished(this.turn, this.results[this.last] as ToolResultPart);
    this.turn.addToolMessage(this.plans, this.opened, this.results);
  }

  /** The activity failed: the tool is no longer shown running. */
  failed(): void {
    this.turn.visibility.toolEnded(this.call.toolCallId);
  }

  private runWithNextStep(runs: TurnActivities, input: RunToolInput): Promise<RunToolThenModelStepOutput> {
    const { turn, call, last } = this;
    // The tool message as `addToolMessage` will write it, split around this call's result.
    const slot: ToolResultPart = {
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: 'text', value: '' },
    };
    const content = turn.toolMessageContent(
      this.plans,
      this.opened,
      this.results.map((part, index) => (index === last ? slot : part)),
    );
    const at = content.indexOf(slot);
    return runs.runToolThenModelStep({
      call: input,
      toolMessage: { before: content.slice(0, at), after: content.slice(at + 1) },
      step: { ...turn.stepInput(), step: turn.steps + 1 },
    });
  }
}
