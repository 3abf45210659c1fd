import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import { z } from 'zod';
import {
  type RecordedDecision,
  respondToToolApprovalsInputSchema,
  submitToolOutputInputSchema,
  type SubmitToolOutputInput,
  type ToolResultOutput,
  type ToolResultPart,
} from '../../protocol';
import type { ApprovalBook } from './approval-book-v1';
import type { ClientToolOutputs } from './client-tool-outputs-v1';
import {
  decisionErrorTypes,
  respondToToolApprovalsUpdate,
  submitToolOutputUpdate,
  toolApprovalResponseSignal,
  toolOutputErrorTypes,
} from '../definitions';

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
  onDecided: () => void;
  onOutput: (toolCallId: string, toolName: string) => void;
}): void {
  const { book, outputs } = options;

  setHandler(toolApprovalResponseSignal, (payload) => {
    book.receiveSignal(payload, new Date());
    options.onDecided();
  });

  setHandler(
    respondToToolApprovalsUpdate,
    ({ responses }) => {
      const check = book.checkBatch(responses);
      if (!check.accepted) throw ApplicationFailure.nonRetryable(check.message, decisionErrorTypes[check.cause]);
      const now = new Date();
      const recorded = responses.map((decision) => book.apply(decision, 'update', now));
      options.onDecided();
      // Frozen shape: v1 turns return audit entries without an outcome.
      return recorded as unknown as RecordedDecision[];
    },
    {
      validator: (request) => {
        const parsed = respondToToolApprovalsInputSchema.safeParse(request);
        if (!parsed.success) {
          throw ApplicationFailure.nonRetryable(
            `Invalid respondToToolApprovals input: ${z.prettifyError(parsed.error)}`,
            decisionErrorTypes.invalid,
          );
        }
        const check = book.checkBatch(parsed.data.responses);
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
      validator: (submission) => {
        const parsed = submitToolOutputInputSchema.safeParse(submission);
        if (!parsed.success) {
          throw ApplicationFailure.nonRetryable(
            `Invalid submitToolOutput input: ${z.prettifyError(parsed.error)}`,
            toolOutputErrorTypes.invalid,
          );
        }
        const check = outputs.check(parsed.data);
        if (!check.accepted) throw ApplicationFailure.nonRetryable(check.message, check.type);
      },
    },
  );
}
