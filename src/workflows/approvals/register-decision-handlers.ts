import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type {
  RecordedDecision,
  SubmitToolOutputInput,
  ToolApprovalDecision,
  ToolResultOutput,
  ToolResultPart,
} from '../../protocol';
import type { ApprovalBook } from './approval-book';
import type { ClientToolOutputs } from './client-tool-outputs';
import {
  decisionErrorTypes,
  respondToToolApprovalsUpdate,
  submitToolOutputUpdate,
  toolApprovalResponseSignal,
  toolOutputErrorTypes,
} from '../definitions';
import { inspectPayload, toolDataPayloadLimits } from '../guards/bounded-payload';
import { loadSchemaChecks } from '../guards/load-schema-checks';
import { readDecisionBatch, receiveDecisionSignal } from './decision-messages';

/**
 * The turn's message handlers for decisions and client outputs. Validators check everything they
 * can synchronously, so a bad request is refused before anything is written to history; handlers
 * check again, since another message may have been applied in between.
 */
export function registerDecisionHandlers(options: {
  book: ApprovalBook;
  outputs: ClientToolOutputs;
  /** Checks a client's output against the tool's output schema (an activity: the schema lives on the worker). */
  validateOutput: (
    toolName: string,
    submission: SubmitToolOutputInput,
  ) => Promise<{ valid: true; output: ToolResultOutput } | { valid: false; error: string }>;
  onOutput: (toolCallId: string, toolName: string) => void;
  /** Checks an editor's input against the tool's input schema (an activity: the schema lives on the worker). */
  validateInput: (toolName: string, input: unknown) => Promise<{ valid: true } | { valid: false; error: string }>;
  /** Passes a signalled decision on to where it belongs (a sub-agent's approval); true when it did. */
  passOn?: (payload: unknown) => boolean;
  /** The sub-agent workflow that waits for `approvalId`, when one of this turn's running sub-agents listed it. */
  holderOf?: (approvalId: string) => string | undefined;
  /**
   * Passes an update's decisions on to the sub-agent that waits for them (turn revision 17): `accepts` says whether it
   * takes the batch (checked in the validator and again in the handler), `pass` answers with the sub-agent's answer.
   */
  relay?: {
    accepts: (decisions: readonly ToolApprovalDecision[]) => boolean;
    pass: (decisions: readonly ToolApprovalDecision[], request: unknown) => Promise<RecordedDecision[]>;
  };
}): { decide: (request: unknown) => RecordedDecision[] | Promise<RecordedDecision[]> } {
  const { book, outputs } = options;

  setHandler(toolApprovalResponseSignal, (payload) => {
    if (options.passOn?.(payload)) return;
    receiveDecisionSignal(book, payload, new Date());
  });

  /** The update's decisions on this turn's own approvals, judged and recorded; throws the update's refusal. */
  const decide = (decisions: ToolApprovalDecision[]): RecordedDecision[] | Promise<RecordedDecision[]> => {
    const check = book.checkBatch(decisions, 'update');
    if (!check.accepted) throw ApplicationFailure.nonRetryable(check.message, decisionErrorTypes[check.cause]);
    const applyAll = () => {
      const now = new Date();
      return decisions.map((decision) => book.apply(decision, 'update', now));
    };
    const edits = decisions.filter(
      (decision) => decision.input !== undefined && book.decisionOf(decision.approvalId) === undefined,
    );
    // Without an edit the handler stays synchronous, so every history written before revision 7 replays as it ran.
    if (edits.length === 0) return applyAll();
    return (async () => {
      // An edited input must fit the tool's input schema before anything is recorded.
      await checkEditedInputs(book, edits, options.validateInput);
      // Another decision may have been applied while the inputs were being checked.
      const again = book.checkBatch(decisions, 'update');
      if (!again.accepted) throw ApplicationFailure.nonRetryable(again.message, decisionErrorTypes[again.cause]);
      return applyAll();
    })();
  };

  setHandler(
    respondToToolApprovalsUpdate,
    (request): RecordedDecision[] | Promise<RecordedDecision[]> => {
      const decisions = readDecisionBatch(request, book.readsEditedInput());
      if (options.relay?.accepts(decisions)) return options.relay.pass(decisions, request);
      return decide(decisions);
    },
    {
      validator: (request) => {
        const decisions = readDecisionBatch(request, book.readsEditedInput());
        // A sub-agent's approvals: the sub-agent judges them, as an update sent to it would be judged.
        if (options.relay?.accepts(decisions)) return;
        refuseSubAgentsApprovals(decisions, options.holderOf);
        const check = book.checkBatch(decisions, 'update');
        if (!check.accepted) throw ApplicationFailure.nonRetryable(check.message, decisionErrorTypes[check.cause]);
      },
    },
  );

  setHandler(
    submitToolOutputUpdate,
    async (submission): Promise<ToolResultPart> => {
      const call = outputs.callOf(submission.toolCallId);
      const toResult = (output: ToolResultOutput): ToolResultPart => ({
        type: 'tool-result',
        toolCallId: submission.toolCallId,
        toolName: call?.toolName ?? '',
        output,
      });
      const first = outputs.check(submission);
      if (!first.accepted) throw ApplicationFailure.nonRetryable(first.message, first.type);
      if (first.repeat || !call) return toResult(outputs.outputOf(submission.toolCallId) as ToolResultOutput);
      const validation = await options.validateOutput(call.toolName, submission);
      if (!validation.valid) throw ApplicationFailure.nonRetryable(validation.error, toolOutputErrorTypes.invalid);
      // Another submission may have won while the output was being checked.
      const second = outputs.check(submission);
      if (!second.accepted) throw ApplicationFailure.nonRetryable(second.message, second.type);
      if (!second.repeat) {
        outputs.record(submission, validation.output);
        options.onOutput(call.toolCallId, call.toolName);
      }
      return toResult(outputs.outputOf(submission.toolCallId) as ToolResultOutput);
    },
    {
      // Validators are not replayed, so a schema here may change without touching running turns.
      validator: (submission) => {
        const inspection = inspectPayload(submission, toolDataPayloadLimits);
        if (!inspection.bounded) {
          throw ApplicationFailure.nonRetryable(
            `Invalid submitToolOutput input: ${inspection.reason}.`,
            toolOutputErrorTypes.invalid,
          );
        }
        const check = outputs.check(loadSchemaChecks().parseSubmitToolOutput(submission));
        if (!check.accepted) throw ApplicationFailure.nonRetryable(check.message, check.type);
      },
    },
  );
  // What a sub-agent does with an update its parent passed on: exactly what the update would do here.
  return { decide: (request) => decide(readDecisionBatch(request, book.readsEditedInput())) };
}

/** Rejects the update, naming the problem, when an edited input does not fit its tool's input schema. */
async function checkEditedInputs(
  book: ApprovalBook,
  edits: readonly ToolApprovalDecision[],
  validateInput: (toolName: string, input: unknown) => Promise<{ valid: true } | { valid: false; error: string }>,
): Promise<void> {
  for (const decision of edits) {
    const approval = book.pending().find((pending) => pending.approvalId === decision.approvalId);
    // Decided meanwhile: the second check says how.
    if (!approval) continue;
    const verdict = await validateInput(approval.toolName, decision.input);
    if (!verdict.valid) {
      throw ApplicationFailure.nonRetryable(
        `The edited input for "${decision.approvalId}" was refused and nothing was recorded: ${verdict.error}`,
        decisionErrorTypes.invalid,
      );
    }
  }
}

/**
 * Refuses, with where to send it, an update naming a sub-agent's approval in a turn planned before revision 17, which
 * does not pass updates on: the update goes to the workflow the approvalId names (as `TollgateClient.decide` and every
 * channel send it), or the decision is signalled here and passed on. Validators are not replayed: this changes no
 * running turn.
 */
function refuseSubAgentsApprovals(
  decisions: ReadonlyArray<{ approvalId: string }>,
  holderOf: ((approvalId: string) => string | undefined) | undefined,
): void {
  for (const { approvalId } of decisions) {
    const holder = holderOf?.(approvalId);
    if (holder === undefined) continue;
    throw ApplicationFailure.nonRetryable(
      `Approval "${approvalId}" waits in sub-agent workflow "${holder}", not in this turn: send respondToToolApprovals ` +
        `there (the approvalId names it), or signal toolApprovalResponse to this turn, which passes it on.`,
      decisionErrorTypes['unknown-approval'],
    );
  }
}
