// Without zod on purpose: workflow code imports these, and every module a workflow imports is
// evaluated again in each workflow's own module scope (see src/workflows/guards/schema-checks.ts).
import type { ToolResultOutput } from './tool-result-output';

/** A denial result that tells the model the call did not run and why. */
export function executionDenied(reason?: string): ToolResultOutput {
  return reason === undefined ? { type: 'execution-denied' } : { type: 'execution-denied', reason };
}

/** An error result the model can read and act on. */
export function errorText(value: string): ToolResultOutput {
  return { type: 'error-text', value };
}
