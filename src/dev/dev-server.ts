import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Connection } from '@temporalio/client';
import { crashedDuringStartup, DevServerError, tookAPortInUse } from './dev-server-error';
import { acceptsConnections, findFreePort, isPortFree, startAgainWhile } from './ports';
import {
  connectIfRunning,
  connectOrClose,
  probeReadiness,
  type SearchAttributeTypeName,
} from './temporal-server-probe';
import { resolveTemporalCli } from './temporal-cli';
import { spawnServerProcess, type ServerProcess, type ServerProcessExit } from './server-process';

/** Options for {@link startDevServer}. */
export interface DevServerOptions {
  /** gRPC port. Default: a free port. The dev runner passes 7233. */
  port?: number;
  /** Web UI port. Setting it turns the UI on. Default when the UI is on: `port + 1000` if `port` was given, else free. */
  uiPort?: number;
  /** Serve the Web UI. Default: true when `uiPort` is set, false otherwise. */
  ui?: boolean;
  /** Address to bind. Default `127.0.0.1`. */
  ip?: string;
  /** SQLite file for the server's state, so executions survive restarts; its folder is created. Default: in memory. */
  dbFilename?: string;
  /** Namespace to create and wait for. Default `default`. */
  namespace?: string;
  /** Custom search attributes to register, e.g. `{ TollgatePendingTools: 'KeywordList' }`. */
  searchAttributes?: Readonly<Record<string, SearchAttributeTypeName>>;
  /** Receives the server's output lines and startup progress. */
  log?: (line: string) => void;
  /** Temporal CLI binary to run. Default: {@link resolveTemporalCli}. */
  temporalCliPath?: string;
  /** Let {@link resolveTemporalCli} install the CLI with pip when nothing else works. Default true. */
  install?: boolean;
  /** Give up when the server is not ready after this long. Default 30 s. */
  startTimeoutMs?: number;
  /** More `temporal server start-dev` flags, e.g. `['--dynamic-config-value', 'Key=true']`. */
  extraArgs?: readonly string[];
}

/** A running Temporal dev server started by {@link startDevServer}. */
export interface DevServer {
  /** `host:port` for `Connection.connect({ address })` and `NativeConnection.connect({ address })`. */
  address: string;
  /** The gRPC port. */
  port: number;
  /** The namespace that was created and checked. */
  namespace: string;
  /** The Web UI, when it is on. */
  uiUrl?: string;
  /** The SQLite file, as an absolute path, when state is persisted. */
  dbFilename?: string;
  /** Process id of the server, for tests that kill it the hard way. */
  pid: number;
  /** The Temporal CLI binary that runs the server. */
  temporalCliPath: string;
  /** Settles when the server process ends, however it ends. */
  exited: Promise<ServerProcessExit>;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and waits until it has exited. Safe to call twice. */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL, as a crash would, and waits until it has exited. */
  kill(): Promise<void>;
}

/**
 * Starts the real Temporal dev server (`temporal server start-dev`) and resolves once a client can connect, the
 * namespace is usable and every search attribute is registered.
 *
 * The server runs as our own child process rather than through `TestWorkflowEnvironment.createLocal`: createLocal
 * declares the server up as soon as any gRPC server answers on the port (so a port taken by another Temporal passes),
 * gives it a fixed 5 s, cannot send its output to `log`, stops it only with SIGKILL and hides the pid. Owning the
 * process gives a clear error for a busy port, output in the logs, a graceful stop, and a pid for crash tests. The
 * SDK's download is still used, by {@link resolveTemporalCli}, when no CLI is installed.
 *
 * @throws DevServerError when the port is in use, the server exits during startup, or it is not ready in time.
 * @throws TemporalCliNotFoundError when there is no Temporal CLI and none could be installed.
 * @example
 * const server = await startDevServer({
 *   port: 7233,
 *   uiPort: 8233,
 *   dbFilename: '.tollgate/temporal.sqlite',
 *   searchAttributes: { TollgatePendingTools: 'KeywordList' },
 *   log: (line) => console.log(`[temporal] ${line}`),
 * });
 * try {
 *   const connection = await Connection.connect({ address: server.address });
 * } finally {
 *   await server.stop();
 * }
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  // Ports nobody asked for are found free just before the start, and the CLI picks its HTTP API port itself:
  // another process can take one in between. Such a start is tried again, on fresh ports; so is a start that
  // crashed (the server panics now and then while it builds its services, and starts fine when run again).
  const portsGiven = options.port !== undefined || options.uiPort !== undefined;
  return startAgainWhile(
    () => startOnce(options),
    (error) => crashedDuringStartup(error) || (!portsGiven && tookAPortInUse(error)),
    {
      onRetry: (error) =>
        options.log?.(
          crashedDuringStartup(error)
            ? 'The Temporal dev server crashed while it started (a panic, printed above); starting it again.'
            : 'A port was taken while the Temporal dev server started; trying again on other ports.',
        ),
    },
  );
}

async function startOnce(options: DevServerOptions): Promise<DevServer> {
  const startedAt = Date.now();
  const log = options.log ?? (() => undefined);
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const searchAttributes = options.searchAttributes ?? {};
  const port = options.port ?? (await findFreePort(ip));
  const address = formatAddress(ip, port);
  const ui = options.ui ?? options.uiPort !== undefined;
  const uiPort = ui
    ? (options.uiPort ?? (options.port !== undefined ? port + 1000 : await findFreePort(ip)))
    : undefined;

  await ensurePortFree(ip, port, address, 'gRPC');
  if (uiPort !== undefined) await ensurePortFree(ip, uiPort, address, 'Web UI');
  const dbFilename = options.dbFilename === undefined ? undefined : resolve(options.dbFilename);
  if (dbFilename) await mkdir(dirname(dbFilename), { recursive: true });

  const temporalCliPath = options.temporalCliPath ?? (await resolveTemporalCli({ install: options.install, log })).path;
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(port)];
  if (namespace !== 'default') args.push('--namespace', namespace);
  if (dbFilename) args.push('--db-filename', dbFilename);
  args.push(...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]));
  for (const [name, type] of Object.entries(searchAttributes)) args.push('--search-attribute', `${name}=${type}`);
  args.push(...(options.extraArgs ?? []));

  const server = await spawnServerProcess(temporalCliPath, args, log).catch((error: unknown) => {
    throw new DevServerError(describe(error), address);
  });
  try {
    await waitUntilReady(server, {
      ip,
      port,
      address,
      namespace,
      searchAttributes,
      timeoutMs: options.startTimeoutMs ?? 30_000,
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  log(
    `Temporal dev server ready at ${address} in ${((Date.now() - startedAt) / 1000).toFixed(1)}s (pid ${server.pid})`,
  );
  return {
    address,
    port,
    namespace,
    uiUrl: uiPort === undefined ? undefined : `http://${formatAddress(ip, uiPort)}`,
    dbFilename,
    pid: server.pid,
    temporalCliPath,
    exited: server.exited,
    stop: () => server.stop(),
    kill: () => server.kill(),
  };
}

interface ReadinessTarget {
  ip: string;
  port: number;
  address: string;
  namespace: string;
  searchAttributes: Readonly<Record<string, SearchAttributeTypeName>>;
  timeoutMs: number;
}

async function waitUntilReady(server: ServerProcess, target: ReadinessTarget): Promise<void> {
  const deadline = Date.now() + target.timeoutMs;
  let lastReason = 'the port does not accept connections yet';
  let connection: Connection | undefined;
  try {
    while (true) {
      if (server.exitedWith) {
        const output = server.recentOutput();
        throw new DevServerError(
          `The Temporal dev server exited during startup (${describeExit(server.exitedWith)}). ` +
            `Its last output:\n${output || '(none)'}`,
          target.address,
          output,
        );
      }
      if (Date.now() > deadline) {
        throw new DevServerError(
          `The Temporal dev server at ${target.address} was not ready within ${target.timeoutMs / 1000}s: ` +
            `${lastReason}. Its last output:\n${server.recentOutput() || '(none)'}`,
          target.address,
        );
      }
      if (!connection) {
        if (await acceptsConnections(connectHost(target.ip), target.port, 500)) {
          connection = await connectOrClose(target.address, 5_000).catch((error: unknown) => {
            lastReason = `no gRPC answer yet (${describe(error)})`;
            return undefined;
          });
        }
      }
      if (connection) {
        // A deadline per probe, so a server that accepts calls but never answers still hits the start timeout.
        const probing = connection;
        const readiness = await probing.withDeadline(Date.now() + 2_000, () =>
          probeReadiness(probing, target.namespace, target.searchAttributes),
        );
        if (readiness.type === 'ready') return;
        if (readiness.type === 'unusable')
          throw new DevServerError(`The Temporal dev server started, but ${readiness.reason}`, target.address);
        lastReason = readiness.reason;
      }
      await Promise.race([delay(100), server.exited]);
    }
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

async function ensurePortFree(ip: string, port: number, address: string, role: 'gRPC' | 'Web UI'): Promise<void> {
  // Binding finds most listeners; connecting also finds one bound to a wildcard address on BSD-style systems.
  if ((await isPortFree(ip, port)) && !(await acceptsConnections(connectHost(ip), port, 300))) return;
  const where = formatAddress(ip, port);
  const temporalAnswers = role === 'gRPC' && (await connectIfRunning(where, { timeoutMs: 1_000 }));
  throw new DevServerError(
    `Cannot start the Temporal dev server: ${role} port ${where} is already in use` +
      (temporalAnswers
        ? ' by a running Temporal server. Reuse it (connectIfRunning) or stop it first.'
        : ' by another program. Stop that program or choose another port.'),
    address,
  );
}

function describeExit(exit: ServerProcessExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function connectHost(ip: string): string {
  if (ip === '0.0.0.0') return '127.0.0.1';
  if (ip === '::') return '::1';
  return ip;
}

function formatAddress(ip: string, port: number): string {
  const host = connectHost(ip);
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
