import { createHmac } from 'node:crypto';
import {
  emailLinkSecretsFromEnvironment,
  smtpTransportFromEnvironment,
} from '../../notifications/email/email-notifier-from-environment';
import { usedTokenStoreFromEnvironment } from '../email/email-extension-from-environment';
import type { InboxExtensionOptions } from './inbox-extension';
import { minimumInboxKeyLength } from './signed-inbox-value';
import { parseTrustedProxies } from './trusted-proxies';

/**
 * The inbox's settings from the environment, or undefined when nothing enables it (no session key, no link secret
 * to derive one from, no trusted proxy). Throws a TypeError naming the variable when one is wrong.
 *
 * | variable | meaning |
 * | --- | --- |
 * | `TOLLGATE_INBOX_SESSION_KEY` | signs sign-in links and session cookies (32+ characters; comma-separated, newest first, during a rotation); derived from `TOLLGATE_EMAIL_LINK_SECRET` when unset |
 * | `TOLLGATE_TRUSTED_PROXIES` | comma-separated addresses and CIDR networks whose `X-Forwarded-Email` is believed |
 * | `SMTP_URL` or `SMTP_HOST`…, `TOLLGATE_EMAIL_FROM` | how sign-in links are mailed |
 * | `TOLLGATE_GATEWAY_URL` | the gateway's public URL: where links point, the origin forms must come from |
 * | `TOLLGATE_STORE_URL` | where used links and ended sessions are kept, shared by every gateway |
 */
export function inboxOptionsFromEnvironment(
  tokens: InboxExtensionOptions['tokens'],
  environment: NodeJS.ProcessEnv = process.env,
): InboxExtensionOptions | undefined {
  const sessionKeys = sessionKeysFromEnvironment(environment);
  const trustedProxies = parseTrustedProxies(environment.TOLLGATE_TRUSTED_PROXIES);
  if (sessionKeys.length === 0 && trustedProxies.size === 0) return undefined;
  const transport = smtpTransportFromEnvironment(environment);
  const from = environment.TOLLGATE_EMAIL_FROM?.trim();
  const publicUrl = environment.TOLLGATE_GATEWAY_URL?.trim();
  return {
    tokens,
    sessionKeys,
    trustedProxies,
    ...(transport && from && { mail: { transport, from } }),
    ...(publicUrl && { publicUrl }),
    usedTokens: usedTokenStoreFromEnvironment(environment),
  };
}

/**
 * The keys of `TOLLGATE_INBOX_SESSION_KEY`, or one derived from the newest `TOLLGATE_EMAIL_LINK_SECRET` (an HMAC
 * of it with a fixed label, so a session key never equals a link secret) when unset.
 */
export function sessionKeysFromEnvironment(environment: NodeJS.ProcessEnv = process.env): string[] {
  const keys = (environment.TOLLGATE_INBOX_SESSION_KEY ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  keys.forEach((key, index) => {
    if (key.length < minimumInboxKeyLength) {
      throw new TypeError(
        `TOLLGATE_INBOX_SESSION_KEY #${index + 1} is too short: use ${minimumInboxKeyLength}+ random characters.`,
      );
    }
  });
  if (keys.length > 0) return keys;
  const [linkSecret] = emailLinkSecretsFromEnvironment(environment);
  return linkSecret ? [createHmac('sha256', linkSecret).update('tollgate-inbox-session-key').digest('base64url')] : [];
}
