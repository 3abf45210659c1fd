import type * as Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { EmailNotifier } from './email-notifier';

/** Shortest link secret accepted: it is an HMAC key, and a short one can be guessed offline. */
export const minimumLinkSecretLength = 32;

/**
 * The link secrets of `TOLLGATE_EMAIL_LINK_SECRET`: comma-separated, newest first during a rotation.
 * Empty when unset; throws when one is too short, naming its position, never its value.
 */
export function emailLinkSecretsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): string[] {
  const secrets = (environment.TOLLGATE_EMAIL_LINK_SECRET ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret.length > 0);
  secrets.forEach((secret, index) => {
    if (secret.length < minimumLinkSecretLength) {
      throw new TypeError(
        `TOLLGATE_EMAIL_LINK_SECRET #${index + 1} is too short: use ${minimumLinkSecretLength}+ random characters.`,
      );
    }
  });
  return secrets;
}

/**
 * The email notifier configured by the environment, or undefined when no SMTP server is set. Once
 * one is, the sender, the gateway URL and a link secret are required: a half-configured notifier
 * fails at start-up rather than when the first approval waits.
 *
 * | variable | meaning |
 * | --- | --- |
 * | `SMTP_URL` | `smtp://user:password@host:587` or `smtps://…` (or the next five) |
 * | `SMTP_HOST`, `SMTP_PORT`, `SMTP_USER`, `SMTP_PASSWORD`, `SMTP_SECURE` | the same, one by one (`SMTP_SECURE=true`: TLS from the start) |
 * | `TOLLGATE_EMAIL_FROM` | the sender |
 * | `TOLLGATE_GATEWAY_URL` | the gateway's public URL, for the links |
 * | `TOLLGATE_EMAIL_LINK_SECRET` | signs the links; comma-separated, newest first, during a rotation |
 *
 * @example
 * const notifiers = [emailNotifierFromEnvironment()].filter((notifier) => notifier !== undefined);
 */
export function emailNotifierFromEnvironment(environment: NodeJS.ProcessEnv = process.env): EmailNotifier | undefined {
  const url = environment.SMTP_URL;
  const host = environment.SMTP_HOST;
  if (!url && !host) return undefined;
  if (url && host) throw new TypeError('Set SMTP_URL or SMTP_HOST, not both.');
  const from = environment.TOLLGATE_EMAIL_FROM;
  const gatewayUrl = environment.TOLLGATE_GATEWAY_URL;
  const secrets = emailLinkSecretsFromEnvironment(environment);
  const missing = [
    !from && 'TOLLGATE_EMAIL_FROM',
    !gatewayUrl && 'TOLLGATE_GATEWAY_URL',
    secrets.length === 0 && 'TOLLGATE_EMAIL_LINK_SECRET',
  ].filter(Boolean);
  if (missing.length > 0) throw new TypeError(`SMTP is configured, but ${missing.join(', ')} is not set.`);
  const transport = smtpTransportFromEnvironment(environment) as Transporter;
  return new EmailNotifier({ transport, from: from as string, gatewayUrl: gatewayUrl as string, secrets });
}

/**
 * The SMTP transport `SMTP_URL` or `SMTP_HOST` (and friends) configure, or undefined when neither is set; what the
 * notifier sends with, and what the gateway's inbox mails sign-in links with.
 */
export function smtpTransportFromEnvironment(environment: NodeJS.ProcessEnv = process.env): Transporter | undefined {
  const url = environment.SMTP_URL;
  const host = environment.SMTP_HOST;
  if (!url && !host) return undefined;
  if (url && host) throw new TypeError('Set SMTP_URL or SMTP_HOST, not both.');
  // Loaded only here, where SMTP is configured: a worker or gateway without it does not load nodemailer at start-up.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const nodemailer = require('nodemailer') as typeof Nodemailer;
  return url ? nodemailer.createTransport(url) : nodemailer.createTransport(smtpOptionsOf(environment));
}

function smtpOptionsOf(environment: NodeJS.ProcessEnv) {
  const port = environment.SMTP_PORT ? Number(environment.SMTP_PORT) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65_535)) {
    throw new TypeError(`SMTP_PORT "${environment.SMTP_PORT}" is not a port number.`);
  }
  const secure = /^(1|true|yes)$/i.test(environment.SMTP_SECURE ?? '');
  const user = environment.SMTP_USER;
  return {
    host: environment.SMTP_HOST as string,
    ...(port !== undefined && { port }),
    secure,
    ...(user && { auth: { user, pass: environment.SMTP_PASSWORD ?? '' } }),
  };
}
