/**
 * Words a person reads, made from what the chat library and the gateway hand the page: a sentence for an error
 * (never a raw problem+json body) and a sentence for the chat's status. A tool's arguments are summarised by
 * Tollgate's own `argumentSummary` (src/protocol/argument-summary.ts), as the approver inbox does.
 */

/** An error as a sentence: the gateway's problem+json `detail` (or `title`), else the message itself. */
export function errorSentence(message: string): string {
  const trimmed = message.trim();
  if (trimmed.startsWith('{')) {
    try {
      const body = JSON.parse(trimmed) as { detail?: unknown; title?: unknown; status?: unknown };
      const text = typeof body.detail === 'string' ? body.detail : typeof body.title === 'string' ? body.title : '';
      if (text !== '') return text;
    } catch {
      // Not JSON after all: show it as it is.
    }
  }
  if (trimmed === '' || /^failed to fetch$/i.test(trimmed)) {
    return 'The gateway could not be reached. Check that it is running, then send again.';
  }
  return trimmed;
}

/** The chat library's status (`submitted`, `streaming`, `ready`, `error`) as a sentence. */
export function statusSentence(status: string, waitingApprovals: number, queued: number): string {
  if (status === 'submitted') return 'Sending…';
  if (status === 'streaming') return 'The agent is answering…';
  if (status === 'error') return 'Something went wrong; see the message above.';
  if (waitingApprovals > 0) {
    const calls = waitingApprovals === 1 ? 'A tool call waits' : `${waitingApprovals} tool calls wait`;
    const after = queued > 0 ? ` Your queued message${queued === 1 ? '' : 's'} will be sent after.` : '';
    return `${calls} for your decision.${after}`;
  }
  return 'Ready.';
}
