import { ApplicationFailure } from '@temporalio/common';
import { APIError } from 'openai';

/**
 * Turns an error from the model endpoint into a failure Temporal's retry policy can act on:
 * a 4xx other than 429 is the request's fault and retrying cannot help; everything else
 * (429, 5xx, connection failures) may pass.
 */
export function classifyModelError(error: unknown): ApplicationFailure {
  const status = isApiError(error) ? error.status : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (status !== undefined && status >= 400 && status < 500 && status !== 429) {
    return ApplicationFailure.create({
      message: `The model endpoint rejected the request (HTTP ${status}): ${message}`,
      type: 'ModelRequestRejected',
      nonRetryable: true,
      cause: error instanceof Error ? error : undefined,
    });
  }
  return ApplicationFailure.create({
    message: `The model endpoint is unavailable${status ? ` (HTTP ${status})` : ''}: ${message}`,
    type: 'ModelUnavailable',
    cause: error instanceof Error ? error : undefined,
  });
}

// Recognised by shape as well as class: errors can cross module realms (Jest, bundles).
function isApiError(error: unknown): error is { status: number | undefined } {
  return (
    error instanceof APIError ||
    (typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number')
  );
}
