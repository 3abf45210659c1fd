import type { Allow, StandingGrant, ToolApprovalAuditEntry } from '../protocol';
import { ApprovalDecisionError, type ApprovalDecisionErrorCode } from './approval-decision-error';
import type { PendingApprovalOfTurn } from './tollgate-client';

const codeOfStatus: Record<number, ApprovalDecisionErrorCode> = {
  400: 'invalid',
  403: 'forbidden',
  404: 'unknown-approval',
  409: 'conflict',
};

/** The gateway did not answer at all (nothing listens, wrong host); the message names the address and the fix. */
export class GatewayUnreachableError extends Error {
  override readonly name = 'GatewayUnreachableError';
  constructor(
    /** The address tried. */
    readonly baseUrl: string,
    cause: unknown,
  ) {
    const reason = (cause as { cause?: { code?: string; message?: string } }).cause;
    super(
      `cannot reach the approval gateway at ${baseUrl} (${reason?.code ?? reason?.message ?? (cause as Error).message}). ` +
        `Is \`npm run dev\` (or \`npm run gateway\`) running? Elsewhere, pass --gateway URL or set TOLLGATE_GATEWAY_URL.`,
      { cause },
    );
  }
}

/** True for a {@link GatewayUnreachableError}, also across module copies. */
export function isGatewayUnreachableError(error: unknown): error is GatewayUnreachableError {
  return error instanceof Error && error.name === 'GatewayUnreachableError';
}

/**
 * The approval gateway's REST API, for people and services without Temporal access. The approver is
 * the identity the gateway maps the token to.
 *
 * @example
 * const gateway = new GatewayClient('http://127.0.0.1:8788', process.env.TOLLGATE_GATEWAY_TOKEN!);
 * for (const approval of await gateway.pending()) console.log(approval.toolName, approval.approvalId);
 */
export class GatewayClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** Pending approvals, optionally of one turn. */
  async pending(options: { workflowId?: string } = {}): Promise<PendingApprovalOfTurn[]> {
    const query = options.workflowId ? `?workflowId=${encodeURIComponent(options.workflowId)}` : '';
    const body = (await this.request('GET', `/v1/approvals${query}`)) as { approvals: PendingApprovalOfTurn[] };
    return body.approvals;
  }

  /** Decides one approval as the token's identity. */
  async decide(
    approvalId: string,
    decision: { approved: boolean; reason?: string; input?: unknown; allow?: Allow },
  ): Promise<ToolApprovalAuditEntry & { allowed?: StandingGrant }> {
    return (await this.request(
      'POST',
      `/v1/approvals/${encodeURIComponent(approvalId)}/decision`,
      decision,
      approvalId,
    )) as ToolApprovalAuditEntry;
  }

  /** The standing grants in force and those ended within a day. */
  async grants(): Promise<StandingGrant[]> {
    return ((await this.request('GET', '/v1/grants')) as { grants: StandingGrant[] }).grants;
  }

  /** Revokes a standing grant as the token's identity. */
  async revokeGrant(grantId: string): Promise<StandingGrant> {
    return (await this.request('DELETE', `/v1/grants/${encodeURIComponent(grantId)}`)) as StandingGrant;
  }

  private async request(method: string, path: string, body?: unknown, approvalId?: string): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new GatewayUnreachableError(this.baseUrl, error);
    }
    const payload = (await response.json().catch(() => ({}))) as { detail?: string; title?: string };
    if (response.ok) return payload;
    const message = payload.detail ?? payload.title ?? `HTTP ${response.status}`;
    const code = codeOfStatus[response.status];
    if (code) throw new ApprovalDecisionError(message, code, approvalId, undefined);
    throw new Error(`The gateway answered ${response.status}: ${message}`);
  }
}
