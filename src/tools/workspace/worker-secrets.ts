import fs from 'node:fs';

/**
 * Worker variables that hold, or name a file that holds, a secret guarding approvals or a credential of a service
 * Tollgate talks to. A command that could read one could approve its own calls or act as the worker, so `bash`
 * never runs unsandboxed while one of them is set (see `resolveSandbox`).
 */
export const workerSecretVariables: readonly string[] = [
  'OPENAI_API_KEY',
  'TOLLGATE_APPROVAL_SECRET',
  'TOLLGATE_DECISION_SIGNING_KEY',
  'TOLLGATE_GATEWAY_TOKEN',
  'TOLLGATE_GATEWAY_TOKENS',
  'TOLLGATE_GATEWAY_TOKENS_FILE',
  'TOLLGATE_ACCESS_FILE',
  'TOLLGATE_CHAT_EXAMPLE_TOKEN',
  'TOLLGATE_EMAIL_LINK_SECRET',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SMTP_PASSWORD',
  'SMTP_URL',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
];

/**
 * The secret variables (`workerSecretVariables`) a process started by the worker could read: those set, not empty,
 * in the worker's environment now, and those it was started with (`startEnvironment`, the NUL-separated
 * `/proc/self/environ`), which `/proc/<worker pid>/environ` keeps showing even after the variable is deleted.
 *
 * @example
 * secretsInWorkerEnvironment({ OPENAI_API_KEY: 'sk-…', PATH: '/usr/bin' }, 'TOLLGATE_APPROVAL_SECRET=x\0');
 * // ['OPENAI_API_KEY', 'TOLLGATE_APPROVAL_SECRET']
 */
export function secretsInWorkerEnvironment(environment: NodeJS.ProcessEnv, startEnvironment = ''): string[] {
  const atStart = new Set(
    startEnvironment
      .split('\0')
      .filter((entry) => entry.indexOf('=') > 0 && entry.indexOf('=') < entry.length - 1)
      .map((entry) => entry.slice(0, entry.indexOf('='))),
  );
  return workerSecretVariables.filter((name) => (environment[name] ?? '') !== '' || atStart.has(name));
}

/** The environment this process was started with, as `/proc/self/environ` shows it; empty where there is none. */
export function readStartEnvironment(): string {
  try {
    return fs.readFileSync('/proc/self/environ', 'latin1');
  } catch {
    return '';
  }
}
