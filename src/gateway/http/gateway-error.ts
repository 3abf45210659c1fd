/** The kinds of problem the gateway answers with, each with its HTTP status and a short title. */
export const problemKinds = {
  'invalid-request': { status: 400, title: 'Invalid request' },
  'malformed-json': { status: 400, title: 'Malformed JSON' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'not-found': { status: 404, title: 'Not found' },
  'unknown-turn': { status: 404, title: 'Unknown turn' },
  'unknown-approval': { status: 404, title: 'Unknown approval' },
  'unknown-grant': { status: 404, title: 'Unknown grant' },
  conflict: { status: 409, title: 'Already decided differently' },
  expired: { status: 409, title: 'Approval expired' },
  'turn-closed': { status: 409, title: 'Turn closed' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Temporal unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

/** One kind of problem, such as `conflict` or `payload-too-large`. */
export type ProblemKind = keyof typeof problemKinds;

/** A field a request got wrong, as `errors` in a 400 problem lists them. */
export interface FieldProblem {
  /** Where: `body.responses[0].approved`, `query.tool`, `params.approvalId`. */
  field: string;
  /** What is wrong with it. */
  message: string;
}

/** Problem-type URIs are URNs: they name the problem without promising a page behind it. */
export function problemTypeOf(kind: ProblemKind): string {
  return `urn:tollgate:problem:${kind}`;
}

/**
 * The gateway's one error type: everything a route refuses becomes one, and the central handler
 * turns it into an RFC 9457 problem. Recognise it by `name` ({@link isGatewayError}), not `instanceof`.
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  /** The HTTP status. */
  readonly status: number;
  /** A short, fixed summary of the kind of problem. */
  readonly title: string;
  /** The problem-type URI. */
  readonly type: string;

  constructor(
    /** The kind of problem. */
    readonly kind: ProblemKind,
    /** What happened in this case, for a person to read. */
    readonly detail: string,
    /** Extension members of the problem body (`errors`, `approvalId`, `workflowId`). */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.status = problemKinds[kind].status;
    this.title = problemKinds[kind].title;
    this.type = problemTypeOf(kind);
  }
}

/** True for a {@link GatewayError}, from any realm. */
export function isGatewayError(error: unknown): error is GatewayError {
  return typeof error === 'object' && error !== null && (error as Error).name === 'GatewayError';
}
