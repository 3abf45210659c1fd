import type { AddressInfo } from 'node:net';
import type { TollgateClient } from '../../src/client';
import {
  ApproverTokens,
  createGateway,
  DecisionAudit,
  digestToken,
  type DecisionAttempt,
  type GatewayOptions,
} from '../../src/gateway';
import { defaultShortcutScopes, type TokenScope } from '../../src/identity';

/**
 * Tokens of the test callers; `eve` has a token of a different length from the others. `ana`, `bob` and
 * `eve` hold the default scopes (start, read their own, decide); `auditor` reads everything and the audit
 * and decides nothing; `robot` starts autonomous turns; `reader` may only read its own turns.
 */
export const testTokens = {
  ana: 'ana-token-0123456789abcdef',
  bob: 'bob-token-fedcba9876543210',
  eve: 'eve-token-a-good-deal-longer-than-the-others',
  auditor: 'auditor-token-0123456789abcdef',
  robot: 'robot-token-0123456789abcdef',
  reader: 'reader-token-0123456789abcdef',
} as const;

/** The scopes of each test token. */
export const testScopes: Record<keyof typeof testTokens, readonly TokenScope[]> = {
  ana: defaultShortcutScopes,
  bob: defaultShortcutScopes,
  eve: defaultShortcutScopes,
  auditor: ['turns:read-all', 'audit:read'],
  robot: ['turns:start', 'turns:autonomous', 'turns:read'],
  reader: ['turns:read'],
};

/** The test tokens as access-file grants. */
export function testTokenGrants(): ApproverTokens {
  return ApproverTokens.fromGrants(
    Object.entries(testTokens).map(([identity, token]) => ({
      digest: digestToken(token),
      identity,
      scopes: testScopes[identity as keyof typeof testTokens],
    })),
  );
}

/** What a test sees of a response. */
export interface GatewayResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** A gateway listening on a random port of this machine, with helpers to call it. */
export interface RunningGateway {
  url: string;
  audit: DecisionAudit;
  /**
   * Calls the gateway as `as` (an approver of {@link testTokens}) unless `token` says otherwise (`null`: no
   * header). A string body is sent as is, still labelled JSON unless `headers` say otherwise.
   */
  call(
    method: string,
    path: string,
    options?: { as?: keyof typeof testTokens; token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<GatewayResponse>;
  close(): Promise<void>;
}

export async function startGateway(
  tollgate: TollgateClient,
  options: Omit<Partial<GatewayOptions>, 'tollgate'> = {},
): Promise<RunningGateway> {
  const audit = options.audit ?? new DecisionAudit();
  const tokens = testTokenGrants();
  const app = await createGateway({
    tokens,
    rateLimit: { max: 10_000, decisionMax: 10_000 },
    // Unsigned unless a test gives a signing key: said explicitly, as an operator must.
    acceptUnsignedDecisions: true,
    ...options,
    tollgate,
    audit,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url,
    audit,
    async call(method, path, { as = 'ana', token, body, headers = {} } = {}) {
      const bearer = token === undefined ? testTokens[as] : token;
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(bearer !== null && { authorization: `Bearer ${bearer}` }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: the test sees the text.
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    close: () => app.close(),
  };
}

/** Asserts an RFC 9457 problem: its media type, its members, and no stack trace anywhere. */
export function expectProblem(response: GatewayResponse, status: number, kind: string): void {
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({
    type: `urn:tollgate:problem:${kind}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: expect.stringMatching(/^\//),
  });
  expect(response.status).toBe(status);
  expect(response.text).not.toMatch(/\n\s+at |stack|\.ts:\d+/);
}

/**
 * The attempts `GET /v1/audit` answers with since `since` (every page), as the auditor reads them, once `found` says
 * what is awaited is there (audit lines of a refusal answered at once are written before the answer; others follow it).
 */
export async function auditSince(
  gateway: RunningGateway,
  since: Date,
  found: (attempts: DecisionAttempt[]) => boolean = () => true,
): Promise<DecisionAttempt[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const attempts: DecisionAttempt[] = [];
    let after: string | undefined;
    do {
      const query = new URLSearchParams(after !== undefined ? { after } : {});
      const page = await gateway.call('GET', `/v1/audit?${query}`, { as: 'auditor' });
      expect(page.status).toBe(200);
      attempts.push(
        ...(page.body.attempts as DecisionAttempt[]).filter((attempt) => Date.parse(attempt.at) >= since.getTime()),
      );
      after = page.body.next as string | undefined;
    } while (after !== undefined);
    if (found(attempts) || Date.now() > deadline) return attempts;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
