import { PersonDirectory, readAccessFile } from '../identity';
import { folderStoreFromEnvironment } from '../startup/gateway-startup-checks';
import { checkKeptFromTools } from '../store/kept-from-tools';
import { defaultWorkspaceFolder } from '../tools/workspace/resolve-workspace-root';
import { ApproverTokens, approverTokensFromEnvironment } from './auth/approver-tokens';
import { defaultBodyLimitBytes, type GatewayRateLimit } from './gateway-options';
import { decisionSigningKeyFromEnvironment } from './decisions/decision-signing-key';
import type { DecisionSigningKey } from './decisions/sign-decision';
import { integerOf } from './integer-setting';

/** Where the gateway listens and what it enforces, read from the environment. */
export interface GatewaySettings {
  port: number;
  host: string;
  tokens: ApproverTokens;
  /** The identity map; empty when the access file lists no people (or the shortcut is used). */
  people: PersonDirectory;
  /** Signs forwarded decisions, when configured. */
  signingKey?: DecisionSigningKey;
  /** Append-only JSONL file of decision attempts, if any. */
  auditFile?: string;
  /** The tools' workspace on this machine (`TOLLGATE_WORKSPACE`, default `.tollgate/workspace`), for `createGateway`. */
  workspace: string;
  bodyLimitBytes: number;
  rateLimit: Required<GatewayRateLimit>;
}

/**
 * Reads the gateway's settings. Throws a TypeError naming the variable when one is wrong, and when no
 * token is configured: a gateway without tokens would either be open or useless.
 *
 * | variable | default |
 * | --- | --- |
 * | `TOLLGATE_GATEWAY_PORT` | 8788 |
 * | `TOLLGATE_GATEWAY_HOST` | 127.0.0.1 (only this machine; set 0.0.0.0 behind a proxy) |
 * | `TOLLGATE_ACCESS_FILE` | the access file: people, tokens (as SHA-256) and their scopes (see `readAccessFile`) |
 * | `TOLLGATE_GATEWAY_TOKENS` / `TOLLGATE_GATEWAY_TOKENS_FILE` | shortcut instead of the access file: `{ "<token>": "<person>" }`, default scopes |
 * | `TOLLGATE_DECISION_SIGNING_KEY`, `TOLLGATE_DECISION_KEY_ID` | Ed25519 PKCS#8 key that signs decisions; key id `gateway` |
 * | `TOLLGATE_GATEWAY_AUDIT_FILE` | none (attempts kept in memory only) |
 * | `TOLLGATE_GATEWAY_BODY_LIMIT` | 65536 bytes |
 * | `TOLLGATE_GATEWAY_RATE_LIMIT`, `TOLLGATE_GATEWAY_DECISION_RATE_LIMIT` | 600 and 60 per minute |
 *
 * The access file, the audit file, the used-email-links file, the signing key file and a folder content store must lie
 * outside the tools' workspace
 * (`TOLLGATE_WORKSPACE`, default `.tollgate/workspace`): a tool that can write them could rewrite who
 * may decide, or the record of who did.
 */
export function gatewaySettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): GatewaySettings {
  const accessFile = environment.TOLLGATE_ACCESS_FILE;
  const shortcut = approverTokensFromEnvironment(environment);
  if (accessFile && shortcut) {
    throw new TypeError('Set TOLLGATE_ACCESS_FILE or TOLLGATE_GATEWAY_TOKENS(_FILE), not both.');
  }
  if (!accessFile && !shortcut) {
    throw new TypeError(
      'No gateway tokens configured: set TOLLGATE_ACCESS_FILE to an access file (people, tokens, scopes), ' +
        'or TOLLGATE_GATEWAY_TOKENS to a JSON object such as {"<token>": "<person>"}.',
    );
  }
  const access = accessFile ? readAccessFile(accessFile) : undefined;
  // Read as the workers read it (workspaceToolsOptionsFromEnvironment): blank is unset.
  const workspace = environment.TOLLGATE_WORKSPACE?.trim() || defaultWorkspaceFolder;
  assertOutsideWorkspace(workspace, {
    TOLLGATE_ACCESS_FILE: accessFile,
    TOLLGATE_GATEWAY_TOKENS_FILE: environment.TOLLGATE_GATEWAY_TOKENS_FILE,
    TOLLGATE_GATEWAY_AUDIT_FILE: environment.TOLLGATE_GATEWAY_AUDIT_FILE,
    TOLLGATE_EMAIL_USED_TOKENS_FILE: environment.TOLLGATE_EMAIL_USED_TOKENS_FILE,
    TOLLGATE_DECISION_SIGNING_KEY_FILE: environment.TOLLGATE_DECISION_SIGNING_KEY_FILE,
    ...folderStoreFromEnvironment(environment),
  });
  const signingKey = decisionSigningKeyFromEnvironment(environment);
  return {
    port: integerOf(environment, 'TOLLGATE_GATEWAY_PORT', 8788, 0, 65_535),
    host: environment.TOLLGATE_GATEWAY_HOST || '127.0.0.1',
    tokens: access ? ApproverTokens.fromGrants(access.tokens) : (shortcut as ApproverTokens),
    people: access?.people ?? PersonDirectory.empty(),
    ...(signingKey && { signingKey }),
    ...(environment.TOLLGATE_GATEWAY_AUDIT_FILE && { auditFile: environment.TOLLGATE_GATEWAY_AUDIT_FILE }),
    workspace,
    bodyLimitBytes: integerOf(environment, 'TOLLGATE_GATEWAY_BODY_LIMIT', defaultBodyLimitBytes, 1, 16 * 1024 * 1024),
    rateLimit: {
      max: integerOf(environment, 'TOLLGATE_GATEWAY_RATE_LIMIT', 600, 1, 1_000_000),
      decisionMax: integerOf(environment, 'TOLLGATE_GATEWAY_DECISION_RATE_LIMIT', 60, 1, 1_000_000),
      timeWindowMs: 60_000,
    },
  };
}

/**
 * Refuses gateway files and folders inside the tools' workspace, or holding it (`checkKeptFromTools`). Paths are
 * compared after resolving them (and symbolic links, where they exist), so `workspace/../workspace/audit.jsonl` is
 * caught too.
 */
export function assertOutsideWorkspace(workspace: string, files: Record<string, string | undefined>): void {
  checkKeptFromTools(workspace, files, "the gateway's files");
}
