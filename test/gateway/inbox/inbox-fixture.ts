import { createServer, type AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import type { TollgateClient } from '../../../src/client';
import { createGateway, DecisionAudit } from '../../../src/gateway';
import { SharedUsedTokenStore } from '../../../src/gateway/email';
import { inboxExtension, parseTrustedProxies, type InboxExtensionOptions } from '../../../src/gateway/inbox';
import { digestToken, PersonDirectory } from '../../../src/identity';
import { ApproverTokens } from '../../../src/gateway/auth/approver-tokens';
import { FolderSharedRecords } from '../../../src/store/shared-records';
import { testTokenGrants } from '../gateway-fixture';
import { temporaryFolder } from '../../support/temporary-folder';

/** The key the inbox tests sign sessions with. */
export const testInboxKey = 'inbox-test-session-key-0123456789abcdef0123';

/**
 * People of the inbox tests: ana, bob and eve decide (their tokens hold approvals:decide); the auditor does not; the
 * lead decides and reads the audit, so their inbox shows the statistics chart.
 */
export const inboxPeople = PersonDirectory.fromList([
  { id: 'ana', email: ['ana@example.com'] },
  { id: 'bob', email: ['bob@example.com'] },
  { id: 'eve', email: ['eve@example.com'] },
  { id: 'auditor', email: ['auditor@example.com'] },
  { id: 'lead', email: ['lead@example.com'] },
]);

/** A fresh shared store location, as several gateways naming one store would share. */
export function sharedUsedTokens(folder = temporaryFolder('tollgate-inbox-')): SharedUsedTokenStore {
  return new SharedUsedTokenStore(new FolderSharedRecords(folder));
}

/** What a test sees of an answer. */
export interface InboxResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A gateway with the inbox, listening on `url`. */
export interface InboxGateway {
  url: string;
  audit: DecisionAudit;
  /** Requests the gateway as a browser on its own page would (Origin and Sec-Fetch-Site), unless told otherwise. */
  request(
    method: string,
    pathname: string,
    options?: {
      cookie?: string;
      forwardedEmail?: string;
      json?: unknown;
      form?: Record<string, string>;
      headers?: Record<string, string>;
    },
  ): Promise<InboxResponse>;
  close(): Promise<void>;
}

/** A free port of this machine, so a gateway can know its public URL before it listens. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts a gateway with the inbox. `publicUrl` is its own URL unless given (a second gateway behind the same public
 * URL names the first's); sign-in mails go over real SMTP to `smtpUrl`.
 */
export async function startInboxGateway(
  tollgate: TollgateClient,
  options: { smtpUrl?: string; publicUrl?: string; port?: number } & Partial<
    Omit<InboxExtensionOptions, 'tokens' | 'mail'>
  >,
): Promise<InboxGateway> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const tokens = ApproverTokens.fromGrants([
    ...testTokenGrants().entries,
    {
      digest: digestToken('lead-token-0123456789abcdef'),
      identity: 'lead',
      scopes: ['approvals:decide', 'audit:read'],
    },
  ]);
  const audit = new DecisionAudit();
  const { smtpUrl, port: _port, ...inbox } = options;
  const app = await createGateway({
    tollgate,
    tokens,
    people: inboxPeople,
    audit,
    rateLimit: { max: 10_000, decisionMax: 10_000 },
    // Unsigned, said explicitly, as an operator must.
    acceptUnsignedDecisions: true,
    extensions: [
      inboxExtension({
        tokens,
        sessionKeys: [testInboxKey],
        publicUrl: url,
        ...inbox,
        // The tests' clients are on loopback: believed here only because a test says so, never by configuration.
        ...(typeof inbox.trustedProxies === 'string' && {
          trustedProxies: parseTrustedProxies(inbox.trustedProxies, { allowLoopback: true }),
        }),
        ...(smtpUrl && {
          mail: { transport: nodemailer.createTransport(smtpUrl), from: 'Tollgate <tollgate@example.com>' },
        }),
      }),
    ],
  });
  await app.listen({ port, host: '127.0.0.1' });
  const origin = new URL(options.publicUrl ?? url).origin;
  return {
    url,
    audit,
    async request(method, pathname, { cookie, forwardedEmail, json, form, headers = {} } = {}) {
      const response = await fetch(`${url}${pathname}`, {
        method,
        redirect: 'manual',
        headers: {
          ...(method !== 'GET' && { origin, 'sec-fetch-site': 'same-origin' }),
          ...(cookie && { cookie }),
          ...(forwardedEmail && { 'x-forwarded-email': forwardedEmail }),
          ...(json !== undefined && { 'content-type': 'application/json' }),
          ...(form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
          ...headers,
        },
        ...(json !== undefined && { body: JSON.stringify(json) }),
        ...(form !== undefined && { body: new URLSearchParams(form).toString() }),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // A page: the test reads the text.
      }
      return { status: response.status, headers: response.headers, text, body };
    },
    close: () => app.close(),
  };
}

/** The session cookie a sign-in answer set, as a `Cookie` header value. */
export function sessionCookieOf(response: InboxResponse): string {
  const header = response.headers.get('set-cookie') ?? '';
  const cookie = header.split(';')[0] ?? '';
  if (!cookie.startsWith('tollgate_inbox=') || cookie === 'tollgate_inbox=')
    throw new Error(`No session cookie in "${header}"`);
  return cookie;
}
