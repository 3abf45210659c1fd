// The workflow checks that need zod. Loaded with `loadSchemaChecks()` on first use, never imported:
// with the reusable V8 context, each workflow evaluates the modules it imports in a module scope of
// its own, and zod with the protocol's schemas costs about a megabyte of heap per workflow. A turn
// that waits for an approval never needs them; a client tool's output or a conversation's message does.
import { ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import {
  ledgerClaimInputSchema,
  ledgerGrantInputSchema,
  ledgerRevokeInputSchema,
  sendMessageInputSchema,
  submitToolOutputInputSchema,
  type SubmitToolOutputInput,
} from '../../protocol';
import { toolOutputErrorTypes } from '../definitions';

/** A client's `submitToolOutput` input, parsed, or a non-retryable rejection that says what is wrong. */
export function parseSubmitToolOutput(submission: unknown): SubmitToolOutputInput {
  const parsed = submitToolOutputInputSchema.safeParse(submission);
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(
      `Invalid submitToolOutput input: ${z.prettifyError(parsed.error)}`,
      toolOutputErrorTypes.invalid,
    );
  }
  return parsed.data;
}

/** Rejects a conversation's `sendMessage` input that does not match its schema. */
export function checkSendMessage(message: unknown): void {
  const check = sendMessageInputSchema.safeParse(message);
  if (!check.success) {
    throw ApplicationFailure.nonRetryable(
      `Invalid sendMessage input: ${z.prettifyError(check.error)}`,
      'InvalidMessage',
    );
  }
}

/** Rejects a grant ledger update whose input does not match its schema (the ledger's validators call this). */
export function checkLedgerInput(kind: 'grant' | 'claimGrant' | 'revokeGrant', input: unknown): void {
  const schema =
    kind === 'grant'
      ? ledgerGrantInputSchema
      : kind === 'claimGrant'
        ? ledgerClaimInputSchema
        : ledgerRevokeInputSchema;
  const check = schema.safeParse(input);
  if (!check.success) {
    throw ApplicationFailure.nonRetryable(
      `Invalid ${kind} input: ${z.prettifyError(check.error)}`,
      'InvalidGrantInput',
    );
  }
}
