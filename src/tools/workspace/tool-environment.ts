import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** How the operator widens what processes started by tools see; see `resolveToolEnvironment`. */
export interface ToolEnvironmentOptions {
  /** Names of worker environment variables passed on as they are, besides the defaults (e.g. `['NODE_ENV']`). */
  allow?: string[];
  /** Variables set to fixed values, e.g. `{ CI: '1' }`. */
  set?: Record<string, string>;
  /** The HOME of started processes; default a private folder for this workspace under the system temp folder. */
  home?: string;
}

/** The environment processes started by tools get. */
export interface ToolEnvironment {
  /** Every variable a started process gets, HOME included; nothing else of the worker's environment. */
  variables: Record<string, string>;
  /** The HOME folder, created with mode 0700 before the first process starts (`prepareToolHome`). */
  home: string;
  /** Whether `home` is the default one under the shared temp folder, which must be checked before use. */
  homeIsDefault: boolean;
}

/** Worker variables passed on by default when set: harmless, and needed for tools to behave. */
const passedByDefault = ['PATH', 'LANG', 'LC_ALL', 'TZ'];

/** Used when the worker has no PATH. */
const fallbackPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Prefixes of the variables that guard approvals or reach Temporal (gateway tokens, signing and link secrets, SMTP
 * and Slack credentials, Temporal API keys): a tool that could read them could approve its own calls, so they
 * cannot be allowed, not even by the operator.
 */
const guardedPrefixes = ['TOLLGATE_', 'TEMPORAL_', 'SLACK_', 'SMTP_'];

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment of processes the workspace tools start (`bash`): an allow-list, never the worker's environment,
 * which holds the secrets that guard approvals. It has PATH, LANG, LC_ALL and TZ from the worker when set,
 * `TERM=dumb` (output goes to a model, not a terminal), a HOME of its own (not the worker's, with its credentials),
 * the variables named in `options.allow` (`npm run worker` adds those `TOLLGATE_TOOL_ENV_ALLOW` names), and
 * `options.set`. `workerEnvironment` is where the allowed values are read from.
 *
 * @throws TypeError for a malformed name, or a name that guards approvals (`TOLLGATE_*`, `TEMPORAL_*`, `SLACK_*`,
 * `SMTP_*`).
 *
 * @example
 * resolveToolEnvironment({ allow: ['NODE_ENV'] }, '/srv/workspace').variables;
 * // { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', NODE_ENV: 'production', TERM: 'dumb', HOME: '/tmp/tollgate-home-…' }
 */
export function resolveToolEnvironment(
  options: ToolEnvironmentOptions = {},
  root: string,
  workerEnvironment: NodeJS.ProcessEnv = process.env,
): ToolEnvironment {
  const allowed = [...passedByDefault, ...(options.allow ?? [])];
  const set = options.set ?? {};
  for (const name of [...(options.allow ?? []), ...Object.keys(set)]) checkName(name);
  if ('HOME' in set || (options.allow ?? []).includes('HOME')) {
    throw new TypeError("Tool environment: HOME is the tools' own folder; choose it with env.home, not allow or set.");
  }

  const variables: Record<string, string> = {};
  for (const name of allowed) {
    const value = workerEnvironment[name];
    if (value !== undefined) variables[name] = value;
  }
  variables.PATH ??= fallbackPath;
  variables.TERM = 'dumb';
  Object.assign(variables, set);
  const home = options.home === undefined ? defaultHome(root) : path.resolve(options.home);
  variables.HOME = home;
  return { variables, home, homeIsDefault: options.home === undefined };
}

/**
 * Creates the tools' HOME if missing. The default one lives in the shared temp folder under a predictable name, so
 * it is used only if it is a real folder (not a link) owned by this user and writable by no one else.
 *
 * @throws Error when the folder cannot be made or is not safe to use.
 */
export function prepareToolHome(environment: ToolEnvironment): void {
  const { home } = environment;
  try {
    fs.mkdirSync(home, { recursive: !environment.homeIsDefault, mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stats = fs.lstatSync(home);
  const problem = !stats.isDirectory()
    ? 'is not a folder'
    : environment.homeIsDefault && process.getuid !== undefined && stats.uid !== process.getuid()
      ? 'belongs to another user'
      : environment.homeIsDefault && (stats.mode & 0o022) !== 0
        ? 'is writable by other users'
        : undefined;
  if (problem !== undefined) {
    throw new Error(`The tools' HOME folder ${home} ${problem}; remove it or set env.home to a folder of your own.`);
  }
}

function defaultHome(root: string): string {
  const digest = createHash('sha256').update(root).digest('hex').slice(0, 16);
  const user = process.getuid === undefined ? 'user' : String(process.getuid());
  return path.join(os.tmpdir(), `tollgate-home-${user}-${digest}`);
}

function checkName(name: string): void {
  if (!variableName.test(name)) {
    throw new TypeError(`Tool environment: "${name}" is not a variable name; use letters, digits and "_".`);
  }
  const guarded = guardedPrefixes.find((prefix) => name.toUpperCase().startsWith(prefix));
  if (guarded !== undefined) {
    throw new TypeError(
      `Tool environment: ${name} cannot be passed to tools; ${guarded}* variables guard approvals or reach Temporal, ` +
        'and a tool that could read them could approve its own calls.',
    );
  }
}
