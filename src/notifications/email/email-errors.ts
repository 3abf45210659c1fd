import { ApplicationFailure } from '@temporalio/common';

// nodemailer's codes for faults of the mail or the set-up, which another try cannot fix.
const rejectedCodes = new Set(['EAUTH', 'EENVELOPE', 'EMESSAGE', 'ECONFIG']);

interface SmtpErrorFields {
  code?: unknown;
  responseCode?: unknown;
  message?: string;
}

/**
 * Turns an error from nodemailer into a failure Temporal's retry policy can act on: a 4xx reply, a
 * refused or dropped connection or a timeout may pass (`EmailUnavailable`, retried); a 5xx reply, a
 * failed login or an unusable address cannot (`EmailRejected`, not retried).
 *
 * @example
 * try {
 *   await transport.sendMail(mail);
 * } catch (error) {
 *   throw classifySmtpError(error);
 * }
 */
export function classifySmtpError(error: unknown): ApplicationFailure {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as SmtpErrorFields;
  const cause = error instanceof Error ? error : undefined;
  const reply = typeof fields.responseCode === 'number' ? fields.responseCode : undefined;
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  const what = [code, reply && `SMTP ${reply}`, fields.message ?? String(error)].filter(Boolean).join(': ');
  const rejected = reply !== undefined ? reply >= 500 : code !== undefined && rejectedCodes.has(code);
  if (rejected) {
    return ApplicationFailure.create({
      message: `The mail was refused: ${what}`,
      type: 'EmailRejected',
      nonRetryable: true,
      cause,
    });
  }
  return ApplicationFailure.create({
    message: `The mail server is unavailable: ${what}`,
    type: 'EmailUnavailable',
    cause,
  });
}
