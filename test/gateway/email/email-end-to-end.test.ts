import nodemailer from 'nodemailer';
import { emailExtension } from '../../../src/gateway/email';
import { EmailNotifier } from '../../../src/notifications/email';
import type { ApprovalNotifier } from '../../../src/notifications/notification-types';
import { startSmtpTestServer, type SmtpTestServer } from '../../support/smtp-test-server';
import { createTestEnvironment, uniqueMarker, type TestEnvironment } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { startGateway, type RunningGateway } from '../gateway-fixture';
import { expectPageHeaders, openLink, submitForm, testLinkSecret } from './email-link-visits';

const { tools, runs } = createTestTools();
let smtp: SmtpTestServer;
let environment: TestEnvironment;
let gateway: RunningGateway;
let notifier: EmailNotifier | undefined;

// The links point at the gateway, which starts after the worker: the worker's notifier is bound to it then.
const lateNotifier: ApprovalNotifier = {
  type: 'email',
  requested: (...notice) => (notifier as EmailNotifier).requested(...notice),
  resolved: (...notice) => (notifier as EmailNotifier).resolved(...notice),
};

beforeAll(async () => {
  smtp = await startSmtpTestServer();
  environment = await createTestEnvironment({
    tools,
    notifiers: [lateNotifier],
    // Who is told is the operator's choice.
    policy: { tools: { deleteFile: { notify: [{ type: 'email', to: ['ana@example.com'] }] } } },
  });
  gateway = await startGateway(environment.tollgate, {
    extensions: [emailExtension({ secrets: [testLinkSecret] })],
  });
  notifier = new EmailNotifier({
    transport: nodemailer.createTransport(smtp.url),
    from: 'Tollgate <tollgate@example.com>',
    gatewayUrl: gateway.url,
    secrets: [testLinkSecret],
  });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
  await smtp?.close();
});

describe('email approvals end to end', () => {
  it('mails the request, and following its Approve link like a person (page, then its form) runs the tool', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'report.pdf' } }] },
      { text: 'deleted it' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete the report` }],
      requester: 'carol',
    });

    const mail = await smtp.waitForMail(
      (mail) => mail.text.includes(handle.workflowId) && mail.subject.startsWith('Approval'),
    );
    expect(mail.to).toEqual(['ana@example.com']);
    expect(mail.subject).toBe('Approval needed: deleteFile');
    expect(mail.text).toContain('report.pdf');
    expect(mail.text).toContain('Requested by: carol');
    const lines = mail.text.split('\n');
    const approve = lines[lines.indexOf('Approve:') + 1];
    expect(approve).toMatch(new RegExp(`^${gateway.url}/email/decisions/`));

    // A mail scanner or a person opening the link decides nothing.
    const page = await openLink(approve!);
    expect(page.status).toBe(200);
    expectPageHeaders(page);
    expect(page.text).toContain('report.pdf');
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(0);

    // The form posts back to the page's own address (no action), with its one field.
    const form = /<form method="post"(?: action="([^"]*)")?>([\s\S]*?)<\/form>/.exec(page.text);
    expect(form).not.toBeNull();
    const target = new URL(form![1] ?? '', approve!).toString();
    const fields = [...form![2]!.matchAll(/name="([^"]+)"/g)].map((match) => match[1]);
    expect(fields).toEqual(['reason']);
    const confirmed = await submitForm(target, { body: new URLSearchParams({ reason: 'fine by me' }).toString() });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('approved by email:ana@example.com');

    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', text: 'deleted it' });
    expect(result.audit).toEqual([
      expect.objectContaining({ decision: 'approved', approver: 'email:ana@example.com', reason: 'fine by me' }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);

    const followUp = await smtp.waitForMail(
      (mail) => mail.subject === 'Approved: deleteFile' && mail.text.includes(handle.workflowId),
    );
    expect(followUp.headers['in-reply-to']).toBe(mail.headers['message-id']);
  });
});
