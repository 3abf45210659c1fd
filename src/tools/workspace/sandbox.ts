import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** How `bash` is confined: `auto` uses bubblewrap when it is installed and works, `none` never does. */
export type SandboxMode = 'auto' | 'bubblewrap' | 'none';

/** The sandbox of `bash`, in full. */
export interface SandboxOptions {
  /** Default `TOLLGATE_TOOL_SANDBOX`, else `auto`. */
  mode?: SandboxMode;
  /** Whether sandboxed commands reach the network; default `TOLLGATE_TOOL_NETWORK` (`on`/`off`), else off. */
  network?: boolean;
  /** More files or folders mounted read-only at the same path, e.g. a toolchain under `/opt` or `~/.nvm`. */
  readOnlyPaths?: string[];
  /** The `bwrap` program; default the first `bwrap` on the worker's PATH. */
  bubblewrapPath?: string;
}

/** The sandbox as `bash` uses it, decided once when the tools are created. */
export type ResolvedSandbox =
  | {
      type: 'none';
      /** Why there is none, for logs and the tool's description. */
      reason: string;
    }
  | {
      type: 'bubblewrap';
      /** The `bwrap` program. */
      executable: string;
      /** Whether the network is shared with the sandbox. */
      network: boolean;
      /** Extra read-only mounts. */
      readOnlyPaths: string[];
    };

/** System folders mounted read-only: programs and their libraries. A link (merged /usr) is recreated as a link. */
const systemFolders = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * What of `/etc` programs need: users and groups, locale, time zone, name resolution, TLS roots, the dynamic linker,
 * shell and interpreter defaults. Nothing else: `/etc` is also where operators keep secrets (environment files,
 * registry tokens in npmrc or pip.conf, host keys, shadow passwords).
 */
const etcEntries = [
  'alternatives',
  'bash.bashrc',
  'ca-certificates',
  'ca-certificates.conf',
  'debian_version',
  'gai.conf',
  'gitconfig',
  'group',
  'host.conf',
  'hostname',
  'hosts',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'magic',
  'magic.mime',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'passwd',
  'perl',
  'pki',
  'profile',
  'protocols',
  'python3',
  'resolv.conf',
  'services',
  'ssl',
  'timezone',
];

const modes: readonly SandboxMode[] = ['auto', 'bubblewrap', 'none'];

/**
 * Decides how `bash` is confined, from the option, else `TOLLGATE_TOOL_SANDBOX`, else `auto`. For bubblewrap it
 * checks once that `bwrap` is there and can build the sandbox (it needs user namespaces, which some containers
 * forbid): `auto` then falls back to no sandbox, with the reason; `bubblewrap` throws.
 *
 * @throws Error for `bubblewrap` when bwrap is missing or does not work, or for an unknown mode.
 *
 * @example
 * resolveSandbox({ mode: 'bubblewrap', network: true }, '/srv/workspace');
 * // { type: 'bubblewrap', executable: '/usr/bin/bwrap', network: true, readOnlyPaths: [] }
 */
export function resolveSandbox(
  option: SandboxMode | SandboxOptions | undefined,
  root: string,
  workerEnvironment: NodeJS.ProcessEnv = process.env,
): ResolvedSandbox {
  const options: SandboxOptions = typeof option === 'string' ? { mode: option } : (option ?? {});
  const mode = options.mode ?? (workerEnvironment.TOLLGATE_TOOL_SANDBOX?.trim() || 'auto');
  if (!modes.includes(mode as SandboxMode)) {
    throw new TypeError(`Workspace tools: sandbox must be one of ${modes.join(', ')}, got "${mode}".`);
  }
  if (mode === 'none') return { type: 'none', reason: 'the sandbox is turned off (sandbox: none)' };
  const executable = options.bubblewrapPath ?? findOnPath('bwrap', workerEnvironment.PATH ?? '');
  const missing =
    executable === undefined || !isExecutable(executable)
      ? `bwrap (bubblewrap) was not found${options.bubblewrapPath === undefined ? ' on PATH' : ` at ${executable}`}`
      : undefined;
  const sandbox: ResolvedSandbox = {
    type: 'bubblewrap',
    executable: executable ?? 'bwrap',
    network: options.network ?? parseNetwork(workerEnvironment.TOLLGATE_TOOL_NETWORK),
    readOnlyPaths: (options.readOnlyPaths ?? []).map((entry) => path.resolve(entry)),
  };
  const problem = missing ?? probe(sandbox, root);
  if (problem === undefined) return sandbox;
  if (mode === 'auto') return { type: 'none', reason: problem };
  throw new Error(
    `Workspace tools: sandbox "bubblewrap" is required but ${problem}. Install it (Debian and Ubuntu: ` +
      'apt-get install bubblewrap), or choose sandbox "auto" or "none".',
  );
}

/**
 * The `bwrap` arguments that run a command confined to the workspace: the workspace and the tools' HOME read-write
 * at their own paths, system folders and a few `/etc` files read-only, a private `/tmp`, `/proc` and `/dev`, and
 * nothing else of the file system. New namespaces for users, processes, IPC, host name and (unless `network`) the
 * network; no capabilities; killed with the worker.
 */
export function bubblewrapArguments(
  sandbox: Extract<ResolvedSandbox, { type: 'bubblewrap' }>,
  folders: { root: string; home: string },
): string[] {
  const args = ['--die-with-parent', '--unshare-all', '--cap-drop', 'ALL'];
  if (sandbox.network) args.push('--share-net');
  for (const folder of systemFolders) args.push(...mountOf(folder));
  for (const entry of etcEntries) args.push(...mountOf(path.join('/etc', entry)));
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const extra of sandbox.readOnlyPaths) {
    if (fs.existsSync(extra)) args.push('--ro-bind', extra, extra);
  }
  // Last, so that a workspace or HOME under /tmp or a read-only path is mounted over them, writable.
  args.push('--bind', folders.home, folders.home, '--bind', folders.root, folders.root, '--chdir', folders.root);
  return args;
}

/** A short sentence for the model saying what a command can reach. */
export function describeSandbox(sandbox: ResolvedSandbox): string {
  if (sandbox.type === 'none') {
    return (
      'It is not sandboxed: it runs as the worker user and can reach the whole file system and the network, but ' +
      'not the worker environment variables.'
    );
  }
  return (
    'It runs in a sandbox: only the workspace and HOME are writable, system folders are read-only, the rest of ' +
    `the file system is hidden, /tmp is private and emptied after each call, ${sandbox.network ? 'the network is reachable' : 'there is no network'}, ` +
    'and processes still running when the command ends are stopped.'
  );
}

function mountOf(entry: string): string[] {
  let stats;
  try {
    stats = fs.lstatSync(entry);
  } catch {
    return [];
  }
  if (stats.isSymbolicLink()) return ['--symlink', fs.readlinkSync(entry), entry];
  return ['--ro-bind', entry, entry];
}

/** Runs `true` in the sandbox; a sentence saying what went wrong, or undefined when it works. */
function probe(sandbox: Extract<ResolvedSandbox, { type: 'bubblewrap' }>, root: string): string | undefined {
  const result = spawnSync(sandbox.executable, [...bubblewrapArguments(sandbox, { root, home: root }), 'true'], {
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (result.status === 0) return undefined;
  const said = (result.stderr || result.error?.message || `exit ${result.status ?? result.signal}`).trim();
  return `bwrap at ${sandbox.executable} cannot build the sandbox here (${said})`;
}

function parseNetwork(value: string | undefined): boolean {
  const normalised = value?.trim().toLowerCase();
  if (normalised === undefined || normalised === '' || ['off', 'false', '0', 'no'].includes(normalised)) return false;
  if (['on', 'true', '1', 'yes'].includes(normalised)) return true;
  throw new TypeError(`TOLLGATE_TOOL_NETWORK must be "on" or "off", got "${value}".`);
}

function findOnPath(program: string, searchPath: string): string | undefined {
  for (const folder of searchPath.split(path.delimiter)) {
    if (folder === '') continue;
    const candidate = path.join(folder, program);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
