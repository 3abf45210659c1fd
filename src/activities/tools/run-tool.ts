import { Context } from '@temporalio/activity';
import { editedInputNote, withEditedInputNote, type ToolResultOutput, type ToolResultPart } from '../../protocol';
import { storeLargeOutput } from '../../store';
import type { RunToolInput } from '../turn-activity-types';
import type { TurnActivityDependencies } from '../turn-activity-dependencies';

/** The most text one tool result may carry to the model; more is cut with a note. */
export const maxToolOutputCharacters = 256 * 1024;

/** Runs one approved call and returns its `tool-result`, a large output kept in the store behind a stub. */
export async function runTool(
  { executeTool, store }: Pick<TurnActivityDependencies, 'executeTool' | 'store'>,
  call: RunToolInput,
): Promise<ToolResultPart> {
  const { edit, ...execute } = call;
  const ran = capToolOutput(await executeTool(execute));
  // The model's tool-call stays as it sent it; its result says what ran instead (docs/editing-arguments.md).
  const output = edit
    ? withEditedInputNote(ran, editedInputNote({ editedBy: edit.editedBy, editedInput: call.input }))
    : ran;
  // The stub names this turn: its output is read through the turn that produced it.
  return storeLargeOutput(
    store,
    { type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output },
    Context.current().info.workflowExecution?.workflowId,
  );
}

/** Cuts a text output past {@link maxToolOutputCharacters}, saying so at the end. */
export function capToolOutput(output: ToolResultOutput): ToolResultOutput {
  if ((output.type === 'text' || output.type === 'error-text') && output.value.length > maxToolOutputCharacters) {
    return {
      ...output,
      value: `${output.value.slice(0, maxToolOutputCharacters)}\n[output cut at ${maxToolOutputCharacters} characters of ${output.value.length}]`,
    };
  }
  return output;
}
