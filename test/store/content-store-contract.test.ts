import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seaweedFsLocalSockets, startSeaweedFs, type SeaweedFs } from '../../src/dev/seaweedfs';
import { contentStoreFromUrl, type ContentStore } from '../../src/store';
import { appendTranscript, readTranscript } from '../../src/store';

/**
 * What every content store promises, held against the folder store and an S3 store on a real S3 server (SeaweedFS,
 * started here): two stores on one location are two machines sharing it.
 */
const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-contract-'));
let seaweed: SeaweedFs | undefined;

beforeAll(async () => {
  seaweed = await startSeaweedFs({ folder: path.join(folder, 'seaweedfs') });
}, 600_000);
afterAll(async () => {
  await seaweed?.stop();
  rmSync(folder, { recursive: true, force: true });
});

it("keeps SeaweedFS's log files and sockets in its own folder, not in the system's temporary folder", () => {
  const logs = readdirSync(path.join(folder, 'seaweedfs', 'logs'));
  expect(logs.filter((name) => name.startsWith('weed.')).length).toBeGreaterThan(0);
  // Where the folder's path fits a socket's (a long TMPDIR may not): seaweedfs-sockets.unit.test.ts tests the rule.
  const sockets = seaweedFsLocalSockets(path.join(folder, 'seaweedfs'));
  for (const socket of Object.values(sockets ?? {})) expect(existsSync(socket)).toBe(true);
});

describe.each([
  {
    backend: 'a folder',
    open: () => contentStoreFromUrl(path.join(folder, 'store')),
  },
  {
    backend: 'an S3 bucket (SeaweedFS)',
    open: () => contentStoreFromUrl(`s3://${seaweed!.bucket}/contract/run-1`, seaweed!.environment()),
  },
])('a content store in $backend', ({ open }) => {
  /** A store as another machine would open it: nothing in memory. */
  const machine = (): ContentStore => open().store;

  it('gives back what another machine stored, by its SHA-256', async () => {
    const value = { role: 'user', content: 'héllo ✓', nested: [1, { deep: true }] };
    const ref = await machine().put(value);
    expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    await expect(machine().get(ref)).resolves.toEqual(value);
  });

  it('stores the same value twice, from two machines at once, without error and under one reference', async () => {
    const value = { output: 'x'.repeat(10_000), at: 'same' };
    const refs = await Promise.all([machine().put(value), machine().put(value), machine().put(value)]);
    expect(new Set(refs).size).toBe(1);
    await expect(machine().get(refs[0]!)).resolves.toEqual(value);
  });

  it('keeps a large output whole', async () => {
    const value = { type: 'text', value: 'y'.repeat(6 * 1024 * 1024) };
    const ref = await machine().put(value);
    const back = (await machine().get(ref)) as { value: string };
    expect(back.value.length).toBe(6 * 1024 * 1024);
  });

  it('says which reference is missing, and where it looked', async () => {
    const { store, description } = open();
    const missing = `sha256:${'0'.repeat(64)}`;
    await expect(store.get(missing)).rejects.toMatchObject({
      name: 'ContentNotFound',
      message: expect.stringContaining(description),
    });
    await expect(store.get('not-a-ref')).rejects.toThrow(/not a content reference/);
  });

  it('carries a transcript written on one machine to the next step on another', async () => {
    const head = await appendTranscript(machine(), undefined, [{ role: 'user', content: 'first' }]);
    const next = await appendTranscript(machine(), head, [
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ]);
    await expect(readTranscript(machine(), { head: next, tail: [{ role: 'user', content: 'more' }] })).resolves.toEqual(
      [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        { role: 'user', content: 'more' },
      ],
    );
  });
});

describe('S3 store prefixes', () => {
  it('keep two deployments in one bucket apart', async () => {
    const env = seaweed!.environment();
    const ref = await contentStoreFromUrl(`s3://${seaweed!.bucket}/team-a`, env).store.put({ team: 'a' });
    await expect(contentStoreFromUrl(`s3://${seaweed!.bucket}/team-b`, env).store.get(ref)).rejects.toMatchObject({
      name: 'ContentNotFound',
    });
  });
});
