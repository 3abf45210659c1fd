import { escapeHtml } from '../../notifications/email/email-text';

/** What a sign-in mail says. */
export interface SignInMail {
  subject: string;
  text: string;
  html: string;
}

/**
 * The mail with a one-time sign-in link to the approval inbox.
 *
 * @example
 * const { subject, text, html } = signInMail('https://tollgate.example.com/inbox/sign-in/…', new Date(Date.now() + 900_000));
 */
export function signInMail(link: string, expiresAt: Date): SignInMail {
  const text = [
    'Someone (probably you) asked to sign in to the Tollgate approval inbox with this address.',
    '',
    'Sign in:',
    link,
    '',
    `The link works once, until ${expiresAt.toISOString()}. If you did not ask for it, ignore this mail.`,
  ].join('\n');
  const html = `<!doctype html>
<html><head><meta charset="utf-8"></head>
<body style="font-family:sans-serif;max-width:640px">
<p>Someone (probably you) asked to sign in to the Tollgate approval inbox with this address.</p>
<p><a href="${escapeHtml(link)}" style="background:#1a7f37;color:#fff;padding:8px 16px;text-decoration:none">Sign in to the inbox</a></p>
<p style="color:#555">The link works once, until ${escapeHtml(expiresAt.toISOString())}. If you did not ask for it, ignore this mail.</p>
</body></html>`;
  return { subject: 'Sign in to the Tollgate approval inbox', text, html };
}
