import { emailLinkSecretsFromEnvironment } from '../../notifications/email/email-notifier-from-environment';
import type { GatewayExtension } from '../gateway-options';
import { emailExtension } from './email-extension';
import { LocalUsedTokenStore } from './used-token-store';

/**
 * The email decision routes the environment configures, or undefined when `TOLLGATE_EMAIL_LINK_SECRET`
 * is unset.
 *
 * | variable | meaning |
 * | --- | --- |
 * | `TOLLGATE_EMAIL_LINK_SECRET` | the link secrets, comma-separated, newest first during a rotation |
 * | `TOLLGATE_EMAIL_USED_TOKENS_FILE` | an append-only file of used links, so a restart still refuses them |
 * | `TOLLGATE_GATEWAY_URL` | the gateway's public URL: forms must be posted from its origin |
 *
 * @example
 * const extensions = [emailExtensionFromEnvironment()].filter((extension) => extension !== undefined);
 */
export function emailExtensionFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): GatewayExtension | undefined {
  const secrets = emailLinkSecretsFromEnvironment(environment);
  if (secrets.length === 0) return undefined;
  const file = environment.TOLLGATE_EMAIL_USED_TOKENS_FILE;
  return emailExtension({
    secrets,
    usedTokens: new LocalUsedTokenStore(file ? { file } : {}),
    ...(environment.TOLLGATE_GATEWAY_URL && { publicUrl: environment.TOLLGATE_GATEWAY_URL }),
  });
}
