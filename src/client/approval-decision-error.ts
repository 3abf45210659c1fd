/** Why a decision was refused. */
export type ApprovalDecisionErrorCode =
  'invalid' | 'unknown-approval' | 'conflict' | 'expired' | 'forbidden' | 'turn-closed';

/**
 * A refused decision, with what was refused and why. Recognise it by `name` (or {@link isApprovalDecisionError}),
 * not `instanceof`: errors cross realms in the workflow sandbox and in Jest.
 */
export class ApprovalDecisionError extends Error {
  override readonly name = 'ApprovalDecisionError';

  constructor(
    message: string,
    readonly code: ApprovalDecisionErrorCode,
    readonly approvalId: string | undefined,
    readonly workflowId: string | undefined,
  ) {
    super(message);
  }
}

/** True for an {@link ApprovalDecisionError}, from any realm. */
export function isApprovalDecisionError(error: unknown): error is ApprovalDecisionError {
  return typeof error === 'object' && error !== null && (error as Error).name === 'ApprovalDecisionError';
}
