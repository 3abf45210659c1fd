import { integerOf } from '../integer-setting';

/** The chat routes' settings from the environment. */
export interface ChatSettings {
  allowedOrigins: string[];
  bodyLimitBytes: number;
  requestsPerMinute: number;
}

/**
 * Reads the chat routes' settings. Throws a TypeError naming the variable when one is wrong.
 *
 * | variable | default |
 * | --- | --- |
 * | `TOLLGATE_CHAT_ALLOWED_ORIGINS` | none: only the gateway's own origin (comma-separated, e.g. `http://localhost:3000`) |
 * | `TOLLGATE_CHAT_BODY_LIMIT` | 4194304 bytes |
 * | `TOLLGATE_CHAT_RATE_LIMIT` | 120 requests per user per minute |
 */
export function chatSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ChatSettings {
  const origins = (environment.TOLLGATE_CHAT_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new TypeError(
        `TOLLGATE_CHAT_ALLOWED_ORIGINS: "${origin}" is not an origin such as https://chat.example.com.`,
      );
    }
  }
  return {
    allowedOrigins: origins,
    bodyLimitBytes: integerOf(environment, 'TOLLGATE_CHAT_BODY_LIMIT', 4 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    requestsPerMinute: integerOf(environment, 'TOLLGATE_CHAT_RATE_LIMIT', 120, 1, 1_000_000),
  };
}
