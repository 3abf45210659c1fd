import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startDevServer, type DevServer } from '../../src/dev/dev-server';
import { isDevServerError } from '../../src/dev/dev-server-error';
import { findFreePort } from '../../src/dev/ports';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { connectIfRunning } from '../../src/dev/temporal-server-probe';

const keywordList = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST;
const servers: DevServer[] = [];
const folders: string[] = [];

async function start(options: Parameters<typeof startDevServer>[0]): Promise<DevServer> {
  const server = await startDevServer(options);
  servers.push(server);
  return server;
}

async function withConnection<T>(address: string, use: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

/**
 * A Temporal CLI that crashes as the real server now and then does while it starts (a Go panic, exit code 2) for its
 * first `crashes` runs, and runs the real CLI after that.
 */
function crashingCli(folder: string, { crashes }: { crashes: number }): { path: string; runs: () => number } {
  const path = join(folder, 'temporal');
  const counter = join(folder, 'runs');
  writeFileSync(counter, '');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo run >> '${counter}'`,
      `if [ "$(wc -l < '${counter}')" -le ${crashes} ]; then`,
      "  echo 'panic: runtime error: invalid memory address or nil pointer dereference' >&2",
      "  echo 'goroutine 1 [running]:' >&2",
      '  exit 2',
      'fi',
      `exec '${realCli}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return { path, runs: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
}

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-dev-server-'));
  folders.push(folder);
  return folder;
}

let realCli = '';

beforeAll(async () => {
  // Found (or installed) once, so the tests below time only the server.
  realCli = (await resolveTemporalCli()).path;
}, 600_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('startDevServer', () => {
  it('starts a server on a SQLite file with the namespace and a KeywordList search attribute ready', async () => {
    const dbFilename = join(temporaryFolder(), 'not', 'yet', 'there', 'temporal.db');

    const server = await start({
      dbFilename,
      namespace: 'tollgate-test',
      searchAttributes: { TollgateTestTools: 'KeywordList' },
    });

    expect(server.address).toBe(`127.0.0.1:${server.port}`);
    expect(server.namespace).toBe('tollgate-test');
    expect(server.uiUrl).toBeUndefined();
    expect(existsSync(dbFilename)).toBe(true);
    await withConnection(server.address, async (connection) => {
      const described = await connection.workflowService.describeNamespace({ namespace: 'tollgate-test' });
      expect(described.namespaceInfo?.name).toBe('tollgate-test');
      const listed = await connection.operatorService.listSearchAttributes({ namespace: 'tollgate-test' });
      expect(listed.customAttributes?.TollgateTestTools).toBe(keywordList);
    });
  });

  it('keeps its state when stopped and started again on the same database file and port', async () => {
    const dbFilename = join(temporaryFolder(), 'temporal.db');
    const first = await start({ dbFilename, searchAttributes: { TollgateTestTools: 'KeywordList' } });
    await withConnection(first.address, (connection) =>
      connection.operatorService.addSearchAttributes({
        namespace: 'default',
        searchAttributes: { AddedBeforeRestart: keywordList },
      }),
    );

    await first.stop();
    expect(await connectIfRunning(first.address)).toBe(false);
    const second = await start({
      dbFilename,
      port: first.port,
      searchAttributes: { TollgateTestTools: 'KeywordList' },
    });

    expect(second.address).toBe(first.address);
    await withConnection(second.address, async (connection) => {
      const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(listed.customAttributes).toMatchObject({
        AddedBeforeRestart: keywordList,
        TollgateTestTools: keywordList,
      });
    });
  });

  it('comes back on the same database file and port after the server is killed with SIGKILL', async () => {
    const dbFilename = join(temporaryFolder(), 'temporal.db');
    const first = await start({ dbFilename, namespace: 'survives-a-crash' });

    await first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const second = await start({ dbFilename, port: first.port });

    expect(second.pid).not.toBe(first.pid);
    expect(await connectIfRunning(second.address, { namespace: 'survives-a-crash' })).toBe(true);
  });

  it('refuses a port a running Temporal server already uses, and says so', async () => {
    const running = await start({});

    const failure = await startDevServer({ port: running.port }).catch((error: unknown) => error);

    expect(isDevServerError(failure)).toBe(true);
    expect((failure as Error).message).toContain(
      `gRPC port ${running.address} is already in use by a running Temporal server`,
    );
  });

  it('refuses a port another program listens on, and says so', async () => {
    const port = await findFreePort('127.0.0.1');
    const squatter: Server = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const failure = await startDevServer({ port }).catch((error: unknown) => error);

      expect(isDevServerError(failure)).toBe(true);
      expect((failure as Error).message).toContain(`gRPC port 127.0.0.1:${port} is already in use by another program`);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('starts again on other ports when a port it picked is taken during start-up, three times at most', async () => {
    // The CLI picks its HTTP API port itself; here that port is taken on purpose, on every attempt.
    const port = await findFreePort('127.0.0.1');
    const squatter: Server = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    const lines: string[] = [];
    try {
      const failure = await startDevServer({
        extraArgs: ['--http-port', String(port)],
        log: (line) => lines.push(line),
      }).catch((error: unknown) => error);

      expect(isDevServerError(failure)).toBe(true);
      expect((failure as Error).message).toContain(`127.0.0.1:${port}: bind: address already in use`);
      expect(lines.filter((line) => line.includes('trying again on other ports'))).toHaveLength(2);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('refuses a database file whose search attribute has another type, and says what to do', async () => {
    const dbFilename = join(temporaryFolder(), 'temporal.db');
    const first = await start({ dbFilename, searchAttributes: { TollgateTestTools: 'Keyword' } });
    await first.stop();

    const failure = await startDevServer({
      dbFilename,
      port: first.port,
      searchAttributes: { TollgateTestTools: 'KeywordList' },
    }).catch((error: unknown) => error);

    expect(isDevServerError(failure)).toBe(true);
    expect((failure as Error).message).toContain('TollgateTestTools is registered as Keyword, not KeywordList');
    expect((failure as Error).message).toContain('Use a fresh database file');
    expect(await connectIfRunning(first.address)).toBe(false);
  });

  it('reports the server output when the server exits during startup', async () => {
    const failure = await startDevServer({ extraArgs: ['--no-such-flag'] }).catch((error: unknown) => error);

    expect(isDevServerError(failure)).toBe(true);
    expect((failure as Error).message).toContain('The Temporal dev server exited during startup (exit code 1)');
    expect((failure as Error).message).toContain('unknown flag: --no-such-flag');
  });

  it('starts again, on the port it was given, when the server crashes with a panic while it starts', async () => {
    const folder = temporaryFolder();
    const cli = crashingCli(folder, { crashes: 1 });
    const port = await findFreePort('127.0.0.1');
    const lines: string[] = [];

    const server = await start({ port, temporalCliPath: cli.path, log: (line) => lines.push(line) });

    expect(cli.runs()).toBe(2);
    expect(server.address).toBe(`127.0.0.1:${port}`);
    expect(await connectIfRunning(server.address)).toBe(true);
    expect(lines).toContain('panic: runtime error: invalid memory address or nil pointer dereference');
    expect(lines).toContain(
      'The Temporal dev server crashed while it started (a panic, printed above); starting it again.',
    );
  });

  it('gives up after three crashed starts, with the panic in its error', async () => {
    const cli = crashingCli(temporaryFolder(), { crashes: 3 });

    const failure = await startDevServer({ temporalCliPath: cli.path }).catch((error: unknown) => error);

    expect(cli.runs()).toBe(3);
    expect(isDevServerError(failure)).toBe(true);
    expect((failure as Error).message).toContain('The Temporal dev server exited during startup (exit code 2)');
    expect((failure as Error).message).toContain('panic: runtime error: invalid memory address');
  });

  it('serves the Web UI on the port it was given', async () => {
    const uiPort = await findFreePort('127.0.0.1');

    const server = await start({ uiPort });

    expect(server.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
    const response = await fetch(server.uiUrl as string);
    expect(response.status).toBe(200);
  });

  it('sends the server output to the log and stops for good', async () => {
    const lines: string[] = [];
    const server = await start({ log: (line) => lines.push(line) });

    await server.stop();
    await server.stop();

    expect(lines).toContainEqual(expect.stringMatching(/^Temporal Server: +\S+:\d+/));
    expect(lines).toContainEqual(expect.stringMatching(/^Temporal dev server ready at 127\.0\.0\.1:\d+ in [\d.]+s/));
    expect(await server.exited).toMatchObject({ code: 0 });
    expect(await connectIfRunning(server.address)).toBe(false);
  });
});

describe('connectIfRunning', () => {
  it('answers false at once where no server listens, without waiting out its timeout', async () => {
    // Given ten minutes, longer than the test may run: an answer at all means it did not wait for gRPC's timeout.
    const address = `127.0.0.1:${await findFreePort('127.0.0.1')}`;
    expect(await connectIfRunning(address, { timeoutMs: 600_000 })).toBe(false);
  });
});
