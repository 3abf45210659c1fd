import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { checkProtectedPathsApart } from './protected-paths';
import { decidersFromEnvironment, machineAddresses, sandboxRoutes, type SandboxNetworkRules } from './sandbox-network';
import { readStartEnvironment, secretsInWorkerEnvironment } from './worker-secrets';

/**
 * How `bash` is confined. `bubblewrap` requires the sandbox and stops start-up when it cannot be built; `auto` uses it
 * where it works and otherwise leaves `bash` out; `none` runs `bash` unsandboxed, and only in a worker that holds
 * no secret such a command could read.
 */
export type SandboxMode = 'auto' | 'bubblewrap' | 'none';

/** The sandbox of `bash`, in full. */
export interface SandboxOptions {
  /** Default `auto` (`npm run worker` takes `TOLLGATE_TOOL_SANDBOX`). */
  mode?: SandboxMode;
  /**
   * Whether sandboxed commands reach the network; default off (`npm run worker` takes `TOLLGATE_TOOL_NETWORK`). On
   * means outbound to public addresses only, through slirp4netns in a network namespace of the sandbox's own: never
   * the machine's loopback or addresses, Temporal, the gateway or private ranges (docs/tool-sandbox.md).
   */
  network?: boolean;
  /** With the network on, private IPv4 ranges (CIDR) commands may reach too; default none. */
  networkAllow?: string[];
  /**
   * With the network on, more hosts, addresses or ranges commands never reach, beside the machine's own addresses and
   * the Temporal, gateway and store addresses of the worker's environment (`TEMPORAL_ADDRESS`, `TOLLGATE_GATEWAY_URL`,
   * `AWS_ENDPOINT_URL_S3`). Give the Temporal address here when the worker's connection is not from the environment.
   */
  networkDeny?: string[];
  /** More files or folders mounted read-only at the same path, e.g. a toolchain under `/opt` or `~/.nvm`. */
  readOnlyPaths?: string[];
  /** The `bwrap` program; default the first `bwrap` on the worker's PATH. */
  bubblewrapPath?: string;
  /** The `slirp4netns` program the network needs; default the first on the worker's PATH. */
  slirp4netnsPath?: string;
  /**
   * Files and folders no tool may reach, e.g. the gateway's signing key and token files when the gateway runs in the
   * worker's process (`npm run dev`). None may overlap the workspace, HOME or a read-only path, and since nothing
   * keeps them from an unsandboxed command, `none` refuses to start when any is given.
   */
  protectedPaths?: string[];
}

/** The sandbox as `bash` uses it, decided once when the tools are created. */
export type ResolvedSandbox =
  | {
      /** `bash` runs unsandboxed (`none`); the worker holds none of the secret variables. */
      type: 'none';
      /** Why there is none, for logs and the tool's description. */
      reason: string;
    }
  | {
      /** No sandbox could be built under `auto`: `bash` is left out of the tools. */
      type: 'unavailable';
      /** Why, for the start-up log. */
      reason: string;
    }
  | {
      type: 'bubblewrap';
      /** The `bwrap` program. */
      executable: string;
      /** Whether commands reach the network (outbound only, through `outbound`). */
      network: boolean;
      /** How they reach it, when `network`. */
      outbound?: SandboxOutbound;
      /** Extra read-only mounts. */
      readOnlyPaths: string[];
    };

/** The programs and rules of a sandbox's own network (`outbound-network.sh`). */
export interface SandboxOutbound extends SandboxNetworkRules {
  /** bash, which runs the launcher script. */
  bash: string;
  /** The launcher script. */
  launcher: string;
  /** slirp4netns, which gives the namespace its way out. */
  slirp4netns: string;
  /** iproute2's `ip`, which sets the namespace's routes. */
  ip: string;
  /** util-linux's `unshare`, which makes the namespace. */
  unshare: string;
  /** A resolv.conf naming slirp's DNS forwarder, mounted over the machine's. */
  resolvConf: string;
}

/** The resolv.conf a sandbox with the network on sees: shipped beside this module, never written at run time. */
export const sandboxResolvConf = path.join(__dirname, 'sandbox-resolv.conf');

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

/** The modes `sandbox` takes. */
export const sandboxModes: readonly SandboxMode[] = ['auto', 'bubblewrap', 'none'];

/**
 * Decides how `bash` is confined, from the option, else `auto`. For bubblewrap it checks once that `bwrap` is there
 * and can build the sandbox (it needs user namespaces, which some containers forbid): `bubblewrap` then throws,
 * `auto` leaves `bash` out (`unavailable`, with the reason). Never does a mode fall back to running `bash`
 * unsandboxed: only `none` does that, and it refuses while the worker holds a secret (`workerSecretVariables`, in its
 * environment now or at its start) or guards `protectedPaths`, since an unsandboxed command reads
 * `/proc/<worker pid>/environ`, the worker's memory and every file the worker's user can. `workerEnvironment` is
 * read for what commands must be kept from (its secrets; with the network on, the Temporal, gateway and store
 * addresses it names) and for PATH, never for settings: those are the option's alone.
 *
 * @throws Error for `bubblewrap` when bwrap is missing or does not work; for `none` while the worker holds secrets;
 * when the workspace, HOME or a read-only path overlaps a protected path; TypeError for an unknown mode.
 *
 * @example
 * resolveSandbox({ mode: 'bubblewrap', network: true }, '/srv/workspace');
 * // { type: 'bubblewrap', executable: '/usr/bin/bwrap', network: true, readOnlyPaths: [] }
 */
export function resolveSandbox(
  option: SandboxMode | SandboxOptions | undefined,
  root: string,
  workerEnvironment: NodeJS.ProcessEnv = process.env,
  home?: string,
): ResolvedSandbox {
  const options: SandboxOptions = typeof option === 'string' ? { mode: option } : (option ?? {});
  const mode = options.mode ?? 'auto';
  if (!sandboxModes.includes(mode)) {
    throw new TypeError(`Workspace tools: sandbox must be one of ${sandboxModes.join(', ')}, got "${String(mode)}".`);
  }
  const readOnlyPaths = (options.readOnlyPaths ?? []).map((entry) => path.resolve(entry));
  const protectedPaths = (options.protectedPaths ?? []).map((entry) => path.resolve(entry));
  checkProtectedPathsApart(protectedPaths, {
    workspace: [root],
    HOME: home === undefined ? [] : [home],
    'read-only path': readOnlyPaths,
  });
  if (mode === 'none') {
    refuseSecretsWithinReach(workerEnvironment, protectedPaths);
    return { type: 'none', reason: 'the sandbox is turned off (sandbox "none")' };
  }
  const executable = options.bubblewrapPath ?? findOnPath('bwrap', workerEnvironment.PATH ?? '');
  const missing =
    executable === undefined || !isExecutable(executable)
      ? `bwrap (bubblewrap) was not found${options.bubblewrapPath === undefined ? ' on PATH' : ` at ${executable}`}`
      : undefined;
  const network = options.network ?? false;
  const outbound = network ? resolveOutbound(options, workerEnvironment) : undefined;
  const sandbox: ResolvedSandbox = {
    type: 'bubblewrap',
    executable: executable ?? 'bwrap',
    network,
    ...(outbound !== undefined && typeof outbound !== 'string' && { outbound }),
    readOnlyPaths,
  };
  const problem = missing ?? (typeof outbound === 'string' ? outbound : probe(sandbox, root));
  if (problem === undefined) return sandbox;
  if (mode === 'auto') {
    return { type: 'unavailable', reason: `bash is left out: sandbox "auto" cannot use bubblewrap (${problem})` };
  }
  if (network && (typeof outbound === 'string' || problem.startsWith('the network'))) {
    throw new Error(
      `Workspace tools: the tool network is on (TOLLGATE_TOOL_NETWORK=on) but ${problem}. Sandboxed commands reach ` +
        'the network only from a namespace of their own, through slirp4netns, so that they cannot reach Temporal, ' +
        'the gateway or the machine (docs/tool-sandbox.md). Install slirp4netns, iproute2 and util-linux (Debian ' +
        'and Ubuntu: apt-get install slirp4netns iproute2) and give the worker /dev/net/tun, or turn the network off.',
    );
  }
  throw new Error(
    `Workspace tools: sandbox "bubblewrap" is required but ${problem}. Install it (Debian and Ubuntu: ` +
      'apt-get install bubblewrap) and allow user namespaces (docs/tool-sandbox.md), or choose sandbox "auto", ' +
      'which leaves bash out where bubblewrap cannot work.',
  );
}

/** Throws, naming them, when the worker holds secrets an unsandboxed command could read. */
function refuseSecretsWithinReach(workerEnvironment: NodeJS.ProcessEnv, protectedPaths: string[]): void {
  const secrets = secretsInWorkerEnvironment(
    workerEnvironment,
    workerEnvironment === process.env ? readStartEnvironment() : '',
  );
  if (secrets.length === 0 && protectedPaths.length === 0) return;
  const held = [
    ...(secrets.length > 0 ? [`the worker's ${secrets.join(', ')}`] : []),
    ...(protectedPaths.length > 0 ? [`the gateway's files ${protectedPaths.join(', ')}`] : []),
  ].join(' and ');
  throw new Error(
    `Workspace tools: sandbox "none" refused: bash would run unsandboxed, as the worker's user, and could read ` +
      `${held} (through /proc/<worker pid>/environ, the worker's memory or the files themselves), and with them ` +
      'approve its own calls. Use sandbox "bubblewrap" (TOLLGATE_TOOL_SANDBOX=bubblewrap; Debian and Ubuntu: ' +
      'apt-get install bubblewrap), or run a worker that holds none of these (and the gateway in a process of ' +
      'its own).',
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
  // With the network on, the launcher made a network namespace of its own for the sandbox (`outboundLauncher`); its
  // user namespace maps only root, so the command is given the worker's ids back.
  if (sandbox.outbound !== undefined) args.push('--share-net', ...workerIds());
  for (const folder of systemFolders) args.push(...mountOf(folder));
  for (const entry of etcEntries) args.push(...mountOf(path.join('/etc', entry)));
  if (sandbox.outbound !== undefined) args.push('--ro-bind', sandbox.outbound.resolvConf, '/etc/resolv.conf');
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const extra of sandbox.readOnlyPaths) {
    if (fs.existsSync(extra)) args.push('--ro-bind', extra, extra);
  }
  // Last, so that a workspace or HOME under /tmp or a read-only path is mounted over them, writable.
  args.push('--bind', folders.home, folders.home, '--bind', folders.root, folders.root, '--chdir', folders.root);
  return args;
}

/**
 * The program and arguments that run bwrap (`bwrapCommand`, the sandbox's program and arguments) in the sandbox's own
 * network namespace, with routes that deny `denyAddresses` (see `sandboxRoutes`).
 */
export function outboundLauncher(outbound: SandboxOutbound, denyAddresses: readonly string[], bwrapCommand: string[]) {
  return [
    outbound.bash,
    outbound.launcher,
    outbound.slirp4netns,
    outbound.ip,
    outbound.unshare,
    ...sandboxRoutes(outbound.allow, denyAddresses),
    '--',
    ...bwrapCommand,
  ];
}

/** The programs the sandbox's network needs, or a sentence saying what is missing. */
function resolveOutbound(options: SandboxOptions, environment: NodeJS.ProcessEnv): SandboxOutbound | string {
  const rules: SandboxNetworkRules = {
    allow: options.networkAllow ?? [],
    deny: [...decidersFromEnvironment(environment), ...(options.networkDeny ?? [])],
  };
  // `ip` lives in /usr/sbin, often not on a user's PATH.
  const searchPath = [environment.PATH ?? '', '/usr/sbin', '/sbin', '/usr/bin', '/bin'].join(path.delimiter);
  const programs = {
    bash: findOnPath('bash', searchPath),
    slirp4netns:
      options.slirp4netnsPath === undefined
        ? findOnPath('slirp4netns', searchPath)
        : isExecutable(options.slirp4netnsPath)
          ? options.slirp4netnsPath
          : undefined,
    ip: findOnPath('ip', searchPath),
    unshare: findOnPath('unshare', searchPath),
  };
  const missing = Object.entries(programs)
    .filter(([, found]) => found === undefined)
    .map(([name]) => name);
  if (missing.length > 0) {
    const where = options.slirp4netnsPath === undefined ? 'on PATH' : `(slirp4netns at ${options.slirp4netnsPath})`;
    return `the network cannot be built: ${missing.join(', ')} not found ${where}`;
  }
  // Shipped beside this file (as the launcher is): nothing is written for it, so nothing is left behind.
  if (!fs.existsSync(sandboxResolvConf)) return `the network cannot be built: ${sandboxResolvConf} is missing`;
  return {
    ...rules,
    bash: programs.bash as string,
    launcher: path.join(__dirname, 'outbound-network.sh'),
    slirp4netns: programs.slirp4netns as string,
    ip: programs.ip as string,
    unshare: programs.unshare as string,
    resolvConf: sandboxResolvConf,
  };
}

function workerIds(): string[] {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return ['--uid', String(uid), '--gid', String(gid)];
}

/** A short sentence for the model saying what a command can reach. */
export function describeSandbox(sandbox: ResolvedSandbox): string {
  if (sandbox.type !== 'bubblewrap') {
    return (
      'It is not sandboxed: it runs as the worker user and can reach what that user can, the file system, the ' +
      "worker's processes and the network. Its environment holds only a few allow-listed variables."
    );
  }
  return (
    'It runs in a sandbox: only the workspace and HOME are writable, system folders are read-only, the rest of ' +
    `the file system is hidden, /tmp is private and emptied after each call, ${sandbox.network ? 'public internet addresses are reachable (outbound only; private networks and this machine are not)' : 'there is no network'}, ` +
    "the worker's processes and environment are out of sight, and processes still running when the command ends " +
    'are stopped.'
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
  const bwrap = [sandbox.executable, ...bubblewrapArguments(sandbox, { root, home: root }), 'true'];
  const command = sandbox.outbound ? outboundLauncher(sandbox.outbound, machineAddresses(), bwrap) : bwrap;
  const result = spawnSync(command[0] as string, command.slice(1), {
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
    timeout: 15_000,
  });
  if (result.status === 0) return undefined;
  const said = (result.stderr || result.error?.message || `exit ${result.status ?? result.signal}`).trim();
  const network = /^tollgate network: (.*)$/m.exec(said);
  if (network) return `the network cannot be built (${network[1]})`;
  return `bwrap at ${sandbox.executable} cannot build the sandbox here (${said})`;
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
