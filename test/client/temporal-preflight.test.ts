import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TollgateClient } from '../../src/client';
import { checkTemporal, isTemporalPreflightError } from '../../src/client/temporal-preflight';
import { temporalSettingsFromEnvironment, type TemporalSettings } from '../../src/client/temporal-settings';
import { compiledSource } from '../support/compiled-sources';
import { temporalAddress } from '../support/test-environment';

const repository = path.resolve(__dirname, '../..');

function settingsFor(environment: Record<string, string>): TemporalSettings {
  return temporalSettingsFromEnvironment({
    TEMPORAL_CONFIG_FILE: path.join(repository, '.tollgate', 'no-temporal-config.toml'),
    TEMPORAL_ADDRESS: temporalAddress(),
    ...environment,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<{ problem: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isTemporalPreflightError(error)) return { problem: error.problem, message: error.message };
    throw error;
  }
  throw new Error('expected the preflight to fail');
}

/**
 * Runs an entry point (`src/worker.ts`, `src/gateway/main.ts`) as `npm run worker` would, from the run's compiled code,
 * and waits for it to exit.
 */
async function runEntryPoint(
  file: string,
  environment: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [compiledSource(file)], {
    cwd: repository,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_CONFIG_FILE: path.join(repository, '.tollgate', 'no-temporal-config.toml'),
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}

describe('checkTemporal', () => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await Connection.connect({ address: temporalAddress() });
  });
  afterAll(async () => {
    await connection.close();
  });

  /** A fresh namespace, as a new production namespace is: no custom search attributes. */
  async function bareNamespace(): Promise<string> {
    const namespace = `bare-${randomUUID().slice(0, 8)}`;
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    return namespace;
  }

  it('registers the search attribute on a bare namespace, after which turns start there', async () => {
    const namespace = await bareNamespace();
    const settings = settingsFor({ TEMPORAL_NAMESPACE: namespace });
    const tollgate = await TollgateClient.connect({ ...settings, taskQueue: `preflight-${randomUUID()}` });
    try {
      // Without the attribute the server refuses the turn's search attributes.
      await expect(tollgate.startTurn({ messages: [{ role: 'user', content: 'hello' }] })).rejects.toThrow(
        'Failed to start Workflow',
      );

      const all = ['TollgatePendingApprovals', 'TollgateWaitingTools', 'TollgateApprovers', 'TollgateRequester'];
      expect(await checkTemporal(settings)).toEqual({ registered: all });

      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(all));
      const handle = await tollgate.startTurn({ messages: [{ role: 'user', content: 'hello' }] });
      await handle.terminate('test done');
      expect(await checkTemporal(settings)).toEqual({ registered: [] });
    } finally {
      await tollgate.close();
    }
  });

  it('names the exact temporal command when it may not register the attribute', async () => {
    const namespace = await bareNamespace();
    const failure = await failureOf(checkTemporal(settingsFor({ TEMPORAL_NAMESPACE: namespace }), { register: false }));
    expect(failure.problem).toBe('search-attribute-missing');
    expect(failure.message).toContain(
      `temporal operator search-attribute create --namespace ${namespace} --name TollgatePendingApprovals --type KeywordList`,
    );
  });

  it('reports a namespace that does not exist, with the command that creates it', async () => {
    const failure = await failureOf(checkTemporal(settingsFor({ TEMPORAL_NAMESPACE: 'no-such-namespace' })));
    expect(failure.problem).toBe('namespace-missing');
    expect(failure.message).toContain('temporal operator namespace create --namespace no-such-namespace');
  });

  it('reports an address where nothing listens at once, without waiting for the gRPC timeout', async () => {
    // Given ten minutes, longer than the test may run: an answer at all means it did not wait for gRPC's timeout.
    const failure = await failureOf(
      checkTemporal(settingsFor({ TEMPORAL_ADDRESS: '127.0.0.1:1' }), { timeoutMs: 600_000 }),
    );
    expect(failure).toEqual({
      problem: 'unreachable',
      message: expect.stringContaining('nothing listens on 127.0.0.1:1'),
    });
  });

  it('reports a host name that does not resolve', async () => {
    const failure = await failureOf(checkTemporal(settingsFor({ TEMPORAL_ADDRESS: 'temporal.invalid:7233' })));
    expect(failure.message).toContain('the host "temporal.invalid" cannot be resolved');
  });

  it('tells an API key (which turns TLS on) pointed at a plaintext server apart from a wrong address', async () => {
    const failure = await failureOf(checkTemporal(settingsFor({ TEMPORAL_API_KEY: 'a-cloud-key' })));
    expect(failure.problem).toBe('tls-mismatch');
    expect(failure.message).toMatch(/TLS is on, but the server does not speak TLS.*unset TEMPORAL_API_KEY/);
  });
});

describe('worker and gateway start-up', () => {
  it('a worker pointed at a missing namespace exits with status 1 and says how to fix it', async () => {
    const { code, output } = await runEntryPoint('src/worker.ts', {
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: 'no-such-namespace',
    });
    expect(code).toBe(1);
    expect(output).toContain('Tollgate cannot start: the namespace "no-such-namespace" does not exist');
    expect(output).not.toMatch(/^\s+at /m); // a message, not a stack trace
  });

  it('a gateway pointed at a wrong address exits with status 1 and names the address', async () => {
    const { code, output } = await runEntryPoint('src/gateway/main.ts', {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      TOLLGATE_GATEWAY_TOKENS: JSON.stringify({ 'ana-0123456789abcdef': 'ana' }),
    });
    expect(code).toBe(1);
    expect(output).toContain('Tollgate cannot start: cannot reach Temporal at 127.0.0.1:1');
  });
});
