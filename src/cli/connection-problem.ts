/** Why the CLI could not talk to Temporal: it is not there (yet), or it answered with something else. */
export type ConnectionProblem = { type: 'unavailable'; detail: string } | { type: 'other'; detail: string };

// gRPC status codes that mean "nobody answered": UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED.
const unavailableCodes = new Set([14, 4, 1]);
const unavailableText =
  /ECONNREFUSED|ECONNRESET|UNAVAILABLE|No connection established|Failed to connect|DEADLINE_EXCEEDED|Deadline exceeded|socket hang up|Call cancelled/i;

/** Classifies an error from a Temporal call: a server that is down or restarting, or anything else. */
export function connectionProblemOf(error: unknown): ConnectionProblem {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'number' && unavailableCodes.has(code))
      return { type: 'unavailable', detail: firstLine(message) };
    if (typeof message === 'string' && unavailableText.test(message))
      return { type: 'unavailable', detail: firstLine(message) };
    current = (current as { cause?: unknown }).cause;
  }
  return { type: 'other', detail: firstLine((error as { message?: unknown })?.message ?? String(error)) };
}

/** What to print when Temporal is not reachable: the address and the likely fix, one paragraph, no stack. */
export function temporalUnavailableMessage(address: string, detail?: string): string {
  return (
    `Temporal unavailable at ${address}${detail ? ` (${detail})` : ''}. Is \`npm run dev\` (or your Temporal ` +
    `server) running? Elsewhere, set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE) to your Temporal frontend.`
  );
}

function firstLine(message: unknown): string {
  const text = typeof message === 'string' ? message : String(message);
  const line = text.split('\n')[0]!.trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The one line a command prints while it waits for Temporal to come back. */
export function temporalRetryNotice(address: string, detail: string): string {
  return `Temporal unavailable at ${address}, retrying… (${detail}; is \`npm run dev\` still running?)`;
}

/** Temporal is not there: said in one paragraph with the address and the fix, never as a stack trace. */
export class TemporalUnavailableError extends Error {
  override readonly name = 'TemporalUnavailableError';
  constructor(
    message: string,
    /** What the connection attempt saw (`nothing listens on …`). */
    readonly detail: string,
  ) {
    super(message);
  }
}
