import { ApplicationFailure } from '@temporalio/common';
import type { ToolApprovalDecision } from '../../protocol';
import { decisionErrorTypes } from '../definitions';
import {
  decisionBatchPayloadLimits,
  editedDecisionBatchPayloadLimits,
  inspectPayload,
  signalPayloadLimits,
} from '../guards/bounded-payload';
import { readDecision } from '../guards/read-decision';
import type { ApprovalBook } from './approval-book';

// What a decision message says, read side by side for the signal (which cannot refuse: what it cannot apply is
// recorded as ignored) and the update (which refuses with a clear error before anything is written). Both read each
// decision with readDecision; the approval book judges it.

/** Most decisions one update may carry. */
const maxDecisionsPerUpdate = 100;

/** A signal's decision: applied when acceptable, otherwise recorded as ignored. Signals cannot reject. */
export function receiveDecisionSignal(book: ApprovalBook, payload: unknown, now: Date): void {
  // Bounded before anything reads it: a decision is small and shallow, and junk must not cost the turn.
  const inspection = inspectPayload(payload, signalPayloadLimits);
  if (!inspection.bounded) {
    book.ignore(payload, 'invalid', `Invalid toolApprovalResponse signal: ${inspection.reason}.`, now);
    return;
  }
  const decision = readDecision(payload, { acceptsInput: book.readsEditedInput() });
  if ('invalid' in decision) {
    book.ignore(payload, 'invalid', `Invalid toolApprovalResponse signal: ${decision.invalid}`, now);
    return;
  }
  if (decision.input !== undefined) {
    // A signal cannot be refused, and the input must pass the tool's schema (on the worker) before it counts.
    book.ignore(
      payload,
      'invalid',
      `Edited input is taken only through the respondToToolApprovals update, which checks it against the tool's input schema first; the signal for "${decision.approvalId}" was not applied.`,
      now,
    );
    return;
  }
  const check = book.check(decision, 'signal');
  if (!check.accepted) {
    book.ignore(payload, check.cause, check.message, now);
    return;
  }
  if (check.repeat && decision.signature) {
    // Changes nothing either way; kept so that a signed decision sent again shows as what it is.
    book.ignore(
      payload,
      'replayed',
      `This signed decision on "${decision.approvalId}" by ${decision.approver ?? 'an unnamed approver'} was already counted; a decision counts once.`,
      now,
    );
    return;
  }
  book.apply(decision, 'signal', now);
}

/** The decisions of an update, or a rejection that says what is wrong. */
export function readDecisionBatch(request: unknown, acceptsInput = false): ToolApprovalDecision[] {
  // Decisions stay as small and shallow as ever; only an editor's input (revision 7) may be as deep as tool input.
  let inspection = inspectPayload(acceptsInput ? withoutInputs(request) : request, decisionBatchPayloadLimits);
  if (inspection.bounded && acceptsInput) inspection = inspectPayload(request, editedDecisionBatchPayloadLimits);
  if (!inspection.bounded) {
    throw ApplicationFailure.nonRetryable(
      `Invalid respondToToolApprovals input: ${inspection.reason}.`,
      decisionErrorTypes.invalid,
    );
  }
  const responses = (request as { responses?: unknown } | null)?.responses;
  const extra = request && typeof request === 'object' ? Object.keys(request).filter((key) => key !== 'responses') : [];
  if (!Array.isArray(responses) || responses.length === 0 || responses.length > maxDecisionsPerUpdate || extra.length) {
    throw ApplicationFailure.nonRetryable(
      `Invalid respondToToolApprovals input: expected { responses: [1 to ${maxDecisionsPerUpdate} decisions] }.`,
      decisionErrorTypes.invalid,
    );
  }
  return responses.map((response, index) => {
    const decision = readDecision(response, { acceptsInput });
    if ('invalid' in decision) {
      throw ApplicationFailure.nonRetryable(
        `Invalid respondToToolApprovals input: responses[${index}]: ${decision.invalid}.`,
        decisionErrorTypes.invalid,
      );
    }
    return decision;
  });
}

/** The request with each decision's `input` blanked, read without walking what a sender wrote. */
function withoutInputs(request: unknown): unknown {
  const responses = (request as { responses?: unknown } | null)?.responses;
  if (!Array.isArray(responses) || responses.length > maxDecisionsPerUpdate) return request;
  return {
    ...(request as object),
    responses: responses.map((response: unknown) =>
      typeof response === 'object' && response !== null && !Array.isArray(response) && 'input' in response
        ? { ...response, input: null }
        : response,
    ),
  };
}
