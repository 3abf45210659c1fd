// Without zod on purpose: workflow code checks edit rights and digests with it (see decision-signature-payload.ts).
import { approverRefusal } from './approver-rights';
import { inputDigestOf } from './input-digest';
import type { ToolResultOutput } from './tool-result-output';
import type { ApprovalRights } from './turn-plan';

/** What an edit check needs of a decision. */
export interface EditingDecision {
  approvalId: string;
  approved: boolean;
  approver?: string;
  /** The input the approver wants the call to run with instead of the model's. */
  input?: unknown;
}

/**
 * Why `decision` may not change the call's input, or undefined when it may (or changes nothing). Input goes only with
 * an approval; who may edit is the approver rule's (`approverRefusal` with `edit`): only one of the approval's
 * `editors`, and only on an approval one person settles (on a quorum, each approver would be approving different
 * arguments).
 *
 * @example
 * editRefusal({ approvalId, approved: true, approver: 'ana', input: { path: 'b.txt' } }, { editors: ['ana'], allowSelfApproval: true, quorum: 1 });
 * // undefined: ana may edit
 */
export function editRefusal(decision: EditingDecision, rights: ApprovalRights | undefined): string | undefined {
  if (decision.input === undefined) return undefined;
  if (!decision.approved) {
    return `A decision on "${decision.approvalId}" carries input only when it approves; a denial runs nothing.`;
  }
  return approverRefusal(decision.approvalId, rights, decision.approver, 'edit');
}

/** The digest a signed edited decision binds (base64url SHA-256 of the input's canonical JSON); undefined without an edit. */
export function editedInputDigestOf(decision: { input?: unknown }): string | undefined {
  return decision.input === undefined ? undefined : inputDigestOf(decision.input);
}

/** Most characters of the edited input the model is shown; the call itself runs with all of it. */
const maxNoteInputLength = 4000;

/**
 * The sentence a call's result begins with when an editor changed its input: the model's own tool-call stays in the
 * transcript as it was sent, so the result says truthfully what ran instead.
 */
export function editedInputNote(edit: { editedBy: string; editedInput: unknown }): string {
  let shown = JSON.stringify(edit.editedInput) ?? 'null';
  if (shown.length > maxNoteInputLength) shown = `${shown.slice(0, maxNoteInputLength)}… (cut)`;
  return (
    `[Approver ${JSON.stringify(edit.editedBy)} changed the arguments of this call before approving it. ` +
    `It ran with these arguments instead of yours: ${shown}]`
  );
}

/**
 * `output` with the edit's note in front, in a shape every reader of a transcript shows the model: text outputs get
 * it as their first line, content as its first part; JSON outputs become text (note, then the JSON), since a JSON
 * value has no place for it. A denial is left as it is (a denied call ran nothing).
 */
export function withEditedInputNote(output: ToolResultOutput, note: string): ToolResultOutput {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { ...output, value: `${note}\n\n${output.value}` };
    case 'json':
      return { type: 'text', value: `${note}\n\n${JSON.stringify(output.value)}` };
    case 'error-json':
      return { type: 'error-text', value: `${note}\n\n${JSON.stringify(output.value)}` };
    case 'content':
      return { ...output, value: [{ type: 'text', text: note }, ...output.value] };
    default:
      return output;
  }
}
