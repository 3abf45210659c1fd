import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DecisionAudit } from '../../../src/gateway';
import { FolderSharedRecords } from '../../../src/store/shared-records';
import { createTestEnvironment, uniqueMarker, waitFor, type TestEnvironment } from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';
import { startGateway, type RunningGateway } from '../gateway-fixture';

const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let gateway: RunningGateway;
/** One shared store location: the worker writes grant uses where the gateway keeps its audit. */
const recordsFolder = mkdtempSync(path.join(tmpdir(), 'tollgate-grant-audit-'));

beforeAll(async () => {
  const records = new FolderSharedRecords(recordsFolder);
  environment = await createTestEnvironment({ tools, auditRecords: records });
  gateway = await startGateway(environment.tollgate, { audit: new DecisionAudit({ shared: records }) });
});
afterAll(async () => {
  await gateway?.close();
  await environment?.close();
  rmSync(recordsFolder, { recursive: true, force: true });
});

describe('calls a standing grant let through, in GET /v1/audit', () => {
  it('names the grant and who gave it beside the approval that gave it, once per call', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-0`, name: 'deleteFile', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'b.txt' } }] },
      { toolCalls: [{ id: `${marker}-2`, name: 'deleteFile', arguments: { path: 'c.txt' } }] },
      { text: 'finished' },
    );
    const started = await gateway.call('POST', '/v1/turns', {
      as: 'bob',
      body: { messages: [{ role: 'user', content: `${marker} tidy up` }] },
    });
    const { workflowId } = started.body as { workflowId: string };
    const listed = await waitFor(
      () => gateway.call('GET', `/v1/approvals?workflowId=${encodeURIComponent(workflowId)}`),
      (response) => response.body.approvals?.length === 1,
    );
    const firstAsk = listed.body.approvals[0].approvalId as string;
    const decided = await gateway.call('POST', `/v1/approvals/${firstAsk}/decision`, {
      as: 'ana',
      body: { approved: true, allow: { uses: 5 } },
    });
    expect(decided.status).toBe(200);
    const grantId = decided.body.allowed.grantId as string;
    const finished = await waitFor(
      () => gateway.call('GET', `/v1/turns/${encodeURIComponent(workflowId)}`, { as: 'bob' }),
      (response) => response.body.status === 'completed',
    );
    expect(runs.filter((run) => run.toolCallId.startsWith(marker))).toHaveLength(3);
    const coveredApprovals = (finished.body.audit as Array<{ approvalId: string; via: string }>)
      .filter((entry) => entry.via === 'grant')
      .map((entry) => entry.approvalId);
    expect(coveredApprovals).toHaveLength(2);

    const audit = await gateway.call('GET', `/v1/audit?workflowId=${encodeURIComponent(workflowId)}`, {
      as: 'auditor',
    });
    expect(audit.status).toBe(200);
    const uses = (audit.body.attempts as Array<{ grant?: { action: string } }>).filter(
      (attempt) => attempt.grant?.action === 'use',
    );
    expect(uses).toEqual([
      {
        at: expect.any(String),
        approver: 'ana',
        identity: `grant:${grantId}`,
        channel: 'grant',
        approvalId: coveredApprovals[0],
        workflowId,
        approved: true,
        reason: `Approved by standing grant ${grantId} from ana, use 1 of 5.`,
        outcome: 'recorded',
        grant: { action: 'use', grantId, summary: 'deleteFile, use 1 of 5' },
      },
      expect.objectContaining({
        approvalId: coveredApprovals[1],
        reason: `Approved by standing grant ${grantId} from ana, use 2 of 5.`,
        grant: { action: 'use', grantId, summary: 'deleteFile, use 2 of 5' },
      }),
    ]);
    // The decision that gave the grant is there too, with the grant it gave.
    const everything = await gateway.call('GET', '/v1/audit', { as: 'auditor' });
    expect(everything.body.attempts).toContainEqual(
      expect.objectContaining({
        approvalId: firstAsk,
        channel: 'rest',
        grant: expect.objectContaining({ action: 'grant', grantId }),
      }),
    );
    await gateway.call('DELETE', `/v1/grants/${grantId}`);
  });
});
