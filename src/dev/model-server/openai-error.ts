/** The body OpenAI sends with an HTTP error, which the `openai` client turns into a typed `APIError`. */
export interface OpenAIErrorBody {
  /** The error details. */
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Builds an OpenAI-style error body, with the `type` OpenAI would use for the status when none is given. */
export function openAIErrorBody(status: number, message: string, type?: string, code?: string): OpenAIErrorBody {
  return { error: { message, type: type ?? defaultErrorType(status), param: null, code: code ?? null } };
}

function defaultErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}
