import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSeaweedFs, type SeaweedFs } from '../../src/dev/seaweedfs';
import { DecisionAudit, type DecisionAttempt } from '../../src/gateway/decisions/decision-audit';
import { SharedUsedTokenStore } from '../../src/gateway/email/used-token-store';
import { sharedRecordsFromUrl, type SharedRecords } from '../../src/store/shared-records';
import { waitFor } from '../support/test-environment';

/**
 * What the shared records promise, and the used-link store and audit built on them, held against a folder and an S3
 * bucket on a real S3 server (SeaweedFS, started here): two record sets on one location are two gateways sharing it.
 */
const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-records-'));
let seaweed: SeaweedFs | undefined;

beforeAll(async () => {
  seaweed = await startSeaweedFs({ folder: path.join(folder, 'seaweedfs') });
}, 600_000);
afterAll(async () => {
  await seaweed?.stop();
  rmSync(folder, { recursive: true, force: true });
});

let run = 0;

describe.each([
  { backend: 'a folder', url: () => path.join(folder, 'store') },
  { backend: 'an S3 bucket (SeaweedFS)', url: () => `s3://${seaweed!.bucket}/records-contract` },
])('shared records in $backend', ({ url }) => {
  let location: string;
  beforeEach(() => {
    run += 1;
    location = `${url()}/run-${run}`;
  });
  /** The records as another gateway would open them: nothing in memory. */
  const gateway = (): SharedRecords => sharedRecordsFromUrl(location, seaweed!.environment());

  it('creates a record once when many gateways create it at once, and keeps the first body', async () => {
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, index) => gateway().create('things/one', `body ${index}`)),
    );
    expect(created.filter(Boolean)).toHaveLength(1);
    await expect(gateway().read('things/one')).resolves.toBe(`body ${created.indexOf(true)}`);
    await expect(gateway().create('things/one', 'again')).resolves.toBe(false);
  });

  it('lists a folder in name order, and forgets what was removed', async () => {
    for (const name of ['b', 'a', 'c']) await gateway().create(`letters/${name}`, name);
    await gateway().create('other/z', 'z');
    await expect(gateway().list('letters')).resolves.toEqual(['letters/a', 'letters/b', 'letters/c']);
    await gateway().remove('letters/b');
    await expect(gateway().list('letters')).resolves.toEqual(['letters/a', 'letters/c']);
    await expect(gateway().read('letters/b')).resolves.toBeUndefined();
    await expect(gateway().list('empty')).resolves.toEqual([]);
  });

  it('lists a page after a name, at most so many, without reading what comes before', async () => {
    const names = Array.from({ length: 7 }, (_, index) => `pages/r${index}`);
    for (const name of names) await gateway().create(name, name);
    await expect(gateway().list('pages', { limit: 3 })).resolves.toEqual(names.slice(0, 3));
    await expect(gateway().list('pages', { after: 'pages/r2', limit: 3 })).resolves.toEqual(names.slice(3, 6));
    await expect(gateway().list('pages', { after: 'pages/r5', limit: 3 })).resolves.toEqual(['pages/r6']);
    await expect(gateway().list('pages', { after: 'pages/r6' })).resolves.toEqual([]);
  });

  it('pages the shared audit: every record once, in order, with a cursor until the end', async () => {
    const writer = new DecisionAudit({ shared: gateway() });
    let third: Date | undefined;
    for (let index = 0; index < 5; index++) {
      if (index === 3) third = new Date();
      await writer.record({
        at: new Date().toISOString(),
        approver: `person-${index}`,
        channel: 'rest',
        approvalId: `approval-${index % 2}`,
        approved: true,
        outcome: 'recorded',
      });
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const reader = new DecisionAudit({ shared: gateway() });
    const first = await reader.readPage({}, { limit: 2 });
    expect(first.attempts.map((attempt) => attempt.approver)).toEqual(['person-0', 'person-1']);
    const second = await reader.readPage({}, { after: first.next, limit: 2 });
    expect(second.attempts.map((attempt) => attempt.approver)).toEqual(['person-2', 'person-3']);
    const last = await reader.readPage({}, { after: second.next, limit: 2 });
    expect(last.attempts.map((attempt) => attempt.approver)).toEqual(['person-4']);
    expect(last.next).toBeUndefined();
    // A filter applies within the page read: a page may hold fewer, never one of another approval.
    const filtered = await reader.readPage({ approvalId: 'approval-1' }, { limit: 3 });
    expect(filtered.attempts.map((attempt) => attempt.approver)).toEqual(['person-1']);
    expect(filtered.next).toBeDefined();
    expect((await reader.read()).map((attempt) => attempt.approver)).toHaveLength(5);
    // A window is read from its first moment (what the approval statistics ask for).
    const later = new DecisionAudit({ shared: gateway() });
    expect((await later.read({ since: third })).map((attempt) => attempt.approver)).toEqual(['person-3', 'person-4']);
  });

  it('sweeps the records of expired links a page at a time, keeping live ones; a claim starts a sweep now and then', async () => {
    const now = new Date('2026-11-25T12:00:00Z');
    const expired = new Date('2026-11-25T11:00:00Z');
    // No sweep on claims here: the test sweeps by hand.
    const links = new SharedUsedTokenStore(gateway(), { everyMs: Number.POSITIVE_INFINITY, limit: 2, now: () => now });
    for (const key of ['a', 'b', 'c']) await links.claim([key], expired);
    await links.claim(['live'], new Date('2026-11-25T13:00:00Z'));
    let removed = 0;
    for (let sweep = 0; sweep < 3; sweep++) removed += await links.sweepExpired();
    expect(removed).toBe(3);
    await expect(links.isUsed(['live'])).resolves.toBe(true);
    await expect(links.isUsed(['a'])).resolves.toBe(false);

    // With sweeps due, a claim through another gateway starts one beside it.
    const other = new SharedUsedTokenStore(gateway(), { everyMs: 0, limit: 100, now: () => now });
    await links.claim(['old'], expired);
    await expect(other.claim(['new'], new Date('2026-11-25T13:00:00Z'))).resolves.toBe(true);
    await waitFor(
      () => links.isUsed(['old']),
      (used) => !used,
      10_000,
    );
    await expect(other.isUsed(['new', 'live'])).resolves.toBe(true);
  });

  it('refuses names that could leave the records', async () => {
    await expect(gateway().create('../escape', 'x')).rejects.toThrow(/not a shared record name/);
    await expect(gateway().create('a/../../b', 'x')).rejects.toThrow(/not a shared record name/);
  });

  it('counts a link used twice at once through two gateways once, and refuses it everywhere after', async () => {
    const expires = new Date(Date.now() + 60_000);
    const [a, b] = [new SharedUsedTokenStore(gateway()), new SharedUsedTokenStore(gateway())];
    const claims = await Promise.all([
      a.claim(['link-1'], expires),
      b.claim(['link-1'], expires),
      a.claim(['link-1', 'sibling-1'], expires),
      b.claim(['sibling-1', 'link-1'], expires),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    await expect(new SharedUsedTokenStore(gateway()).isUsed(['link-1'])).resolves.toBe(true);
    await expect(new SharedUsedTokenStore(gateway()).claim(['link-1'], expires)).resolves.toBe(false);
    await expect(new SharedUsedTokenStore(gateway()).isUsed(['never-used'])).resolves.toBe(false);
  });

  it('retires a link when its sibling is used through another gateway, and gives keys back on release', async () => {
    const expires = new Date(Date.now() + 60_000);
    const [a, b] = [new SharedUsedTokenStore(gateway()), new SharedUsedTokenStore(gateway())];
    await expect(a.claim(['approve-2', 'pair-2'], expires)).resolves.toBe(true);
    await expect(b.claim(['deny-2', 'pair-2'], expires)).resolves.toBe(false);
    // The refused claim took nothing: the deny link alone is still free.
    await expect(b.isUsed(['deny-2'])).resolves.toBe(false);
    await a.release(['approve-2', 'pair-2']);
    await expect(b.claim(['deny-2', 'pair-2'], expires)).resolves.toBe(true);
  });

  it("shows every gateway's decision attempts, refused ones included, in the order they were written", async () => {
    const a = new DecisionAudit({ shared: gateway() });
    const b = new DecisionAudit({ shared: gateway() });
    const attempt = (approver: string, outcome: DecisionAttempt['outcome'], approvalId = 'approval-1') => ({
      at: new Date().toISOString(),
      approver,
      channel: 'rest' as const,
      approvalId,
      workflowId: 'turn-1',
      approved: true,
      outcome,
    });
    // A few milliseconds apart: records are named by the millisecond they were written.
    await a.record(attempt('ana', 'refused'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await b.record(attempt('bob', 'recorded'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await a.record(attempt('ana', 'repeat', 'approval-2'));
    const third = new DecisionAudit({ shared: gateway() });
    expect((await third.read({ approvalId: 'approval-1' })).map((x) => [x.approver, x.outcome])).toEqual([
      ['ana', 'refused'],
      ['bob', 'recorded'],
    ]);
    expect((await b.read({ workflowId: 'turn-1' })).map((x) => x.approver)).toEqual(['ana', 'bob', 'ana']);
    // Without a shared store, a gateway answers with its own attempts only.
    expect(a.list().map((x) => x.approver)).toEqual(['ana', 'ana']);
  });
});
