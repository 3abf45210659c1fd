import { Client, Connection } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TollgateClient } from '../../src/client';
import { startModelServer, type ModelServer } from '../../src/dev/model-server';
import { startSeaweedFs, type SeaweedFs } from '../../src/dev/seaweedfs';
import { DecisionAudit } from '../../src/gateway';
import { emailExtensionFromEnvironment } from '../../src/gateway/email/email-extension-from-environment';
import type { ToolResultPart } from '../../src/protocol';
import { contentStoreFromEnvironment } from '../../src/store';
import { sharedRecordsFromEnvironment } from '../../src/store/shared-records';
import { startGateway, type RunningGateway } from '../gateway/gateway-fixture';
import { decisionLink, openLink, submitForm, testLinkSecret } from '../gateway/email/email-link-visits';
import { killProcess, spawnWorkerProcess } from '../support/spawn-worker-process';
import { temporalAddress, uniqueMarker, waitFor } from '../support/test-environment';
import { longDefinitionOf } from '../support/test-tools';

/**
 * Two "machines" of each kind: two workers (child processes) and two gateways, each with a state folder of its own,
 * sharing nothing but Temporal (jest's dev server) and one S3 server (SeaweedFS). The gateways live in this process
 * but share nothing in memory: each builds its Temporal connection, content store, audit and used-link store from an
 * environment of its own, as `npm run gateway` does from its process's.
 */
const root = mkdtempSync(path.join(os.tmpdir(), 'tollgate-many-machines-'));
const taskQueue = `many-machines-${Date.now()}`;
let seaweed: SeaweedFs;
let model: ModelServer;
let storeUrl: string;
const workers: ChildProcess[] = [];
const gateways: Array<{ gateway: RunningGateway; connection: Connection }> = [];

/** The environment of one machine: its own state folder, the shared bucket. */
function machineEnvironment(name: string): NodeJS.ProcessEnv {
  const stateDir = path.join(root, name);
  mkdirSync(stateDir, { recursive: true });
  return { TOLLGATE_STATE_DIR: stateDir, TOLLGATE_STORE_URL: storeUrl, ...seaweed.environment() };
}

async function startWorkerMachine(name: string): Promise<{ process: ChildProcess; runLog: string }> {
  const runLog = path.join(root, `${name}-runs.jsonl`);
  const child = await spawnWorkerProcess({
    taskQueue,
    modelURL: model.baseURL,
    runLog,
    environment: machineEnvironment(name),
  });
  workers.push(child);
  return { process: child, runLog };
}

async function startGatewayMachine(name: string): Promise<RunningGateway> {
  const environment: NodeJS.ProcessEnv = { ...machineEnvironment(name), TOLLGATE_EMAIL_LINK_SECRET: testLinkSecret };
  const connection = await Connection.connect({ address: temporalAddress() });
  const tollgate = new TollgateClient(
    new Client({ connection }),
    taskQueue,
    undefined,
    contentStoreFromEnvironment(environment),
  );
  const gateway = await startGateway(tollgate, {
    audit: new DecisionAudit({
      file: path.join(environment.TOLLGATE_STATE_DIR!, 'audit.jsonl'),
      shared: sharedRecordsFromEnvironment(environment),
    }),
    extensions: [emailExtensionFromEnvironment(environment)!],
  });
  gateways.push({ gateway, connection });
  return gateway;
}

function toolRunsIn(runLog: string): Array<{ tool: string; input: unknown }> {
  if (!existsSync(runLog)) return [];
  return readFileSync(runLog, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { tool: string; input: unknown });
}

beforeAll(async () => {
  seaweed = await startSeaweedFs({ folder: path.join(root, 'seaweedfs') });
  storeUrl = `s3://${seaweed.bucket}/many-machines`;
  model = await startModelServer();
}, 600_000);
afterAll(async () => {
  for (const worker of workers) await killProcess(worker, 'SIGTERM');
  for (const { gateway, connection } of gateways) {
    await gateway.close();
    await connection.close();
  }
  await model?.close();
  await seaweed?.stop();
  rmSync(root, { recursive: true, force: true });
});

it('runs one turn across two workers and two gateways that share only Temporal and an S3 bucket', async () => {
  const gatewayA = await startGatewayMachine('gateway-a');
  const gatewayB = await startGatewayMachine('gateway-b');
  const worker1 = await startWorkerMachine('worker-1');

  const marker = uniqueMarker();
  const query = `long:${marker}`;
  model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-1`, name: 'lookup', arguments: { query } }] },
    { toolCalls: [{ id: `${marker}-2`, name: 'deleteFile', arguments: { path: 'far.txt' } }] },
    { text: 'Looked up and deleted.' },
  );

  // Started through gateway A; worker 1 runs the lookup (an output over 4 KiB, kept in the bucket) and asks.
  const started = await gatewayA.call('POST', '/v1/turns', {
    as: 'ana',
    body: { messages: [{ role: 'user', content: `${marker} look it up, then delete far.txt` }] },
  });
  expect(started.status).toBe(201);
  const workflowId = started.body.workflowId as string;
  const waiting = await waitFor(
    () => gatewayB.call('GET', `/v1/turns/${encodeURIComponent(workflowId)}`, { as: 'ana' }),
    (response) => response.status === 200 && response.body.pending?.length === 1,
    30_000,
  );
  const approvalId = waiting.body.pending[0].approvalId as string;
  expect(toolRunsIn(worker1.runLog).map((run) => run.tool)).toEqual(['lookup']);

  // The worker holding the turn dies mid-turn; another machine's worker, with its own state folder, takes over.
  const worker2 = await startWorkerMachine('worker-2');
  await killProcess(worker1.process, 'SIGKILL');

  // Decided through gateway B, by the link mailed to Ana.
  const link = decisionLink(gatewayB.url, { workflowId, approvalId }, 'approve');
  const decided = await submitForm(link, { body: 'reason=fine+by+me' });
  expect(decided.status).toBe(200);
  expect(decided.text).toContain('deleteFile is approved by email:ana@example.com');

  // The same link through gateway A: already used, on GET and on POST.
  const linkOnA = link.replace(gatewayB.url, gatewayA.url);
  expect((await openLink(linkOnA)).status).toBe(410);
  const again = await submitForm(linkOnA, { body: 'reason=twice' });
  expect(again.status).toBe(410);
  expect(again.text).toContain('already been used');

  // Worker 2 finishes the turn: it runs the approved tool and the last model step reads the transcript worker 1 wrote.
  const finished = await waitFor(
    () => gatewayA.call('GET', `/v1/turns/${encodeURIComponent(workflowId)}`, { as: 'ana' }),
    (response) => response.status === 200 && response.body.status === 'completed',
    60_000,
  );
  expect(finished.body.text).toContain('Looked up and deleted.');
  expect(toolRunsIn(worker2.runLog)).toEqual([expect.objectContaining({ tool: 'deleteFile' })]);
  expect(toolRunsIn(worker1.runLog).map((run) => run.tool)).toEqual(['lookup']);

  // A's turn messages carry the stored output's reference; its full text is read through B (and A).
  const stub = (finished.body.messages as Array<{ role: string; content: unknown }>)
    .flatMap((message) => (message.role === 'tool' ? (message.content as ToolResultPart[]) : []))
    .find((part) => part.type === 'tool-result' && part.toolName === 'lookup') as ToolResultPart;
  const ref = stub.providerOptions?.tollgate?.contentRef as string;
  expect(ref).toMatch(/^sha256:/);
  for (const gateway of [gatewayB, gatewayA]) {
    const content = await gateway.call(
      'GET',
      `/v1/turns/${encodeURIComponent(workflowId)}/content/${encodeURIComponent(ref)}`,
      { as: 'ana' },
    );
    expect(content.status).toBe(200);
    expect(content.body.output).toEqual({ type: 'text', value: longDefinitionOf(query) });
  }

  // Either gateway's audit shows both: the decision B recorded and the second use A refused.
  for (const gateway of [gatewayA, gatewayB]) {
    const audit = await gateway.call('GET', `/v1/audit?approvalId=${encodeURIComponent(approvalId)}`, {
      as: 'auditor',
    });
    expect(audit.status).toBe(200);
    expect(audit.body.attempts).toEqual([
      expect.objectContaining({ channel: 'email', outcome: 'recorded', reason: 'fine by me' }),
      expect.objectContaining({
        channel: 'email',
        outcome: 'refused',
        reason: 'twice',
        refusal: expect.objectContaining({ code: 'link-used' }),
      }),
    ]);
  }
  // Each gateway's own file still holds only what came through it.
  expect(gatewayA.audit.list({ approvalId }).map((attempt) => attempt.outcome)).toEqual(['refused']);
  expect(gatewayB.audit.list({ approvalId }).map((attempt) => attempt.outcome)).toEqual(['recorded']);
}, 180_000);
