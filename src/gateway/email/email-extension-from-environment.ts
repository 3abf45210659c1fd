import { emailLinkSecretsFromEnvironment } from '../../notifications/email/email-notifier-from-environment';
import type { GatewayExtension } from '../gateway-options';
import { emailExtension } from './email-extension';
import { storeLocationFromUrl, storeUrlFromEnvironment } from '../../store/content-store-from-environment';
import { sharedRecordsFromUrl } from '../../store/shared-records';
import { LocalUsedTokenStore, SharedUsedTokenStore, type UsedTokenStore } from './used-token-store';

/**
 * The email decision routes the environment configures, or undefined when `TOLLGATE_EMAIL_LINK_SECRET`
 * is unset.
 *
 * | variable | meaning |
 * | --- | --- |
 * | `TOLLGATE_EMAIL_LINK_SECRET` | the link secrets, comma-separated, newest first during a rotation |
 * | `TOLLGATE_EMAIL_USED_TOKENS_FILE` | with a folder store, an append-only file of used links for this one gateway |
 * | `TOLLGATE_STORE_URL` (and the store's other settings) | where used links are kept otherwise, shared by every gateway naming the same store |
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
  return emailExtension({
    secrets,
    usedTokens: usedTokenStoreFromEnvironment(environment),
    ...(environment.TOLLGATE_GATEWAY_URL && { publicUrl: environment.TOLLGATE_GATEWAY_URL }),
  });
}

/**
 * Where used links are kept: in the shared store location (records beside the content store), so every gateway
 * naming the same store refuses a link used through another; with a folder store and
 * `TOLLGATE_EMAIL_USED_TOKENS_FILE` set, in that file, for one gateway. An S3 store always wins over the file:
 * gateways sharing a bucket are many.
 */
export function usedTokenStoreFromEnvironment(environment: NodeJS.ProcessEnv = process.env): UsedTokenStore {
  const url = storeUrlFromEnvironment(environment);
  const file = environment.TOLLGATE_EMAIL_USED_TOKENS_FILE?.trim();
  if (file && storeLocationFromUrl(url).kind === 'folder') return new LocalUsedTokenStore({ file });
  return new SharedUsedTokenStore(sharedRecordsFromUrl(url, environment));
}
