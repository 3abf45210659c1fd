import type { ModelStepOutput, RunToolInput, TurnActivities } from '../../activities/turn-activity-types';
import type { PlannedToolCall, ToolResultPart, TurnSettings } from '../../protocol';
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
 * recorded before this change hold: the commands and their order are those of every turn revision.
 */
export function runLastToolWithNextStep(
  turn: TurnState,
  settling: Pick<Settling, 'plans' | 'opened'>,
  settled: Settled[],
  last: number,
): Promise<ModelStepOutput | undefined> {
  const { plans, opened } = settling;
  const { call } = plans[last] as PlannedToolCall;
  const results = settled as Array<ToolResultPart | undefined>;
  const follows = turn.nextStepFollows();
  const input = runToolInput(turn, call, opened[last]);
  const tool = toolSummary(call.toolName, input.input);
  const runs = toolRunner(turn.settings as TurnSettings, {
    turnSetsLength: turn.input.toolTimeouts?.startToClose !== undefined,
    thenModelStep: follows,
    summary: follows ? `${tool}, then model step ${turn.steps + 1}` : tool,
  });
  turn.visibility.toolStarted(call.toolCallId, call, follows ? turn.steps + 1 : undefined);
  let ran: Promise<ModelStepOutput | undefined>;
  try {
    ran = runTool(turn, runs, settling, results, last, follows, input);
  } catch (error) {
    turn.visibility.toolEnded(call.toolCallId);
    throw error;
  }
  return ran.then(
    (step) => {
      turn.visibility.toolEnded(call.toolCallId);
      toolFinished(turn, results[last] as ToolResultPart);
      turn.addToolMessage(plans, opened, results);
      return step;
    },
    (error: unknown) => {
      turn.visibility.toolEnded(call.toolCallId);
      throw error;
    },
  );
}

/**
 * The activity of {@link runLastToolWithNextStep}: the tool alone, or the tool and the next model step; its result is
 * in `results[last]` once the returned promise settles, with the next model step when it ran.
 */
function runTool(
  turn: TurnState,
  runs: TurnActivities,
  settling: Pick<Settling, 'plans' | 'opened'>,
  results: Array<ToolResultPart | undefined>,
  last: number,
  follows: boolean,
  input: RunToolInput,
): Promise<ModelStepOutput | undefined> {
  if (!follows) {
    return runs.runTool(input).then((result) => {
      results[last] = result;
      return undefined;
    });
  }
  const { plans, opened } = settling;
  const { call } = plans[last] as PlannedToolCall;
  // The tool message as `addToolMessage` will write it, split around this call's result.
  const slot: ToolResultPart = {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { type: 'text', value: '' },
  };
  const content = turn.toolMessageContent(
    plans,
    opened,
    results.map((part, index) => (index === last ? slot : part)),
  );
  const at = content.indexOf(slot);
  return runs
    .runToolThenModelStep({
      call: input,
      toolMessage: { before: content.slice(0, at), after: content.slice(at + 1) },
      step: { ...turn.stepInput(), step: turn.steps + 1 },
    })
    .then((ran) => {
      results[last] = ran.result;
      if (ran.modelFailure !== undefined) {
        turn.events.note('model-step-retried', turn.steps + 1, {
          detail: `failed after ${call.toolName} had run (${ran.modelFailure.slice(0, 300)}); called again on its own`,
        });
      }
      return ran.step;
    });
}
