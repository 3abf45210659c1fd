import { issueDecisionToken, type EmailDecision } from '../../../src/notifications/email';

/** The secret the email tests sign links with. */
export const testLinkSecret = 'test-link-secret-0123456789abcdef0123456789';

/** What a test sees of a page. */
export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** A decision link of the gateway at `url` for one approval, as the notifier would mail it. */
export function decisionLink(
  url: string,
  approval: { workflowId: string; approvalId: string },
  decision: EmailDecision,
  options: { approver?: string; expiresAt?: Date; secret?: string } = {},
): string {
  const token = issueDecisionToken({
    ...approval,
    approver: options.approver ?? 'email:ana@example.com',
    decision,
    expiresAt: options.expiresAt ?? new Date(Date.now() + 3_600_000),
    secret: options.secret ?? testLinkSecret,
  });
  return `${url}/email/decisions/${token}`;
}

/** Opens a link as a browser would (GET, or HEAD). */
export async function openLink(link: string, method: 'GET' | 'HEAD' = 'GET'): Promise<PageResponse> {
  const response = await fetch(link, { method, headers: { accept: 'text/html' } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * Submits a confirmation form as a browser on the gateway's own page would: `Origin` and
 * `Sec-Fetch-Site: same-origin`, unless `headers` say otherwise (a header set to null is left out).
 */
export async function submitForm(
  link: string,
  options: { body?: string; headers?: Record<string, string | null> } = {},
): Promise<PageResponse> {
  const headers: Record<string, string | null> = {
    origin: new URL(link).origin,
    'sec-fetch-site': 'same-origin',
    'content-type': 'application/x-www-form-urlencoded',
    ...options.headers,
  };
  const response = await fetch(link, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== null),
    ),
    body: options.body ?? '',
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Asserts the headers every decision page carries. */
export function expectPageHeaders(page: PageResponse): void {
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(page.headers.get('referrer-policy')).toBe('same-origin');
  expect(page.headers.get('content-security-policy')).toMatch(
    /default-src 'none'.*form-action 'self'.*frame-ancestors 'none'/,
  );
  expect(page.text).not.toMatch(/\n\s+at |\.ts:\d+/);
}
