import { approverTokensFromEnvironment, type ApproverTokens } from './approver-tokens';
import { defaultBodyLimitBytes, type GatewayRateLimit } from './create-gateway';

/** Where the gateway listens and what it enforces, read from the environment. */
export interface GatewaySettings {
  port: number;
  host: string;
  tokens: ApproverTokens;
  /** Append-only JSONL file of decision attempts, if any. */
  auditFile?: string;
  bodyLimitBytes: number;
  rateLimit: Required<GatewayRateLimit>;
}

/**
 * Reads the gateway's settings. Throws a TypeError naming the variable when one is wrong, and when no
 * approver token is configured: a gateway without tokens would either be open or useless.
 *
 * | variable | default |
 * | --- | --- |
 * | `TOLLGATE_GATEWAY_PORT` | 8788 |
 * | `TOLLGATE_GATEWAY_HOST` | 127.0.0.1 (only this machine; set 0.0.0.0 behind a proxy) |
 * | `TOLLGATE_GATEWAY_TOKENS` / `TOLLGATE_GATEWAY_TOKENS_FILE` | required: `{ "<token>": "<approver>" }` |
 * | `TOLLGATE_GATEWAY_AUDIT_FILE` | none (attempts kept in memory only) |
 * | `TOLLGATE_GATEWAY_BODY_LIMIT` | 65536 bytes |
 * | `TOLLGATE_GATEWAY_RATE_LIMIT`, `TOLLGATE_GATEWAY_DECISION_RATE_LIMIT` | 600 and 60 per minute |
 */
export function gatewaySettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): GatewaySettings {
  return {
    port: integerOf(environment, 'TOLLGATE_GATEWAY_PORT', 8788, 0, 65_535),
    host: environment.TOLLGATE_GATEWAY_HOST || '127.0.0.1',
    tokens: approverTokensFromEnvironment(environment),
    ...(environment.TOLLGATE_GATEWAY_AUDIT_FILE && { auditFile: environment.TOLLGATE_GATEWAY_AUDIT_FILE }),
    bodyLimitBytes: integerOf(environment, 'TOLLGATE_GATEWAY_BODY_LIMIT', defaultBodyLimitBytes, 1, 16 * 1024 * 1024),
    rateLimit: {
      max: integerOf(environment, 'TOLLGATE_GATEWAY_RATE_LIMIT', 600, 1, 1_000_000),
      decisionMax: integerOf(environment, 'TOLLGATE_GATEWAY_DECISION_RATE_LIMIT', 60, 1, 1_000_000),
      timeWindowMs: 60_000,
    },
  };
}

function integerOf(
  environment: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  minimum: number,
  maximum: number,
): number {
  const text = environment[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new TypeError(`${name} must be a whole number from ${minimum} to ${maximum}; got "${text}".`);
  }
  return value;
}
