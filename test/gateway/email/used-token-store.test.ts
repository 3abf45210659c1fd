import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalUsedTokenStore } from '../../../src/gateway/email';
import { temporaryFolder } from '../../support/temporary-folder';

const inAnHour = () => new Date(Date.now() + 3_600_000);

describe('LocalUsedTokenStore', () => {
  it('lets one of two concurrent claims sharing a key through', async () => {
    const store = new LocalUsedTokenStore();
    const claims = await Promise.all([
      store.claim(['jti:a', 'pair:p'], inAnHour()),
      store.claim(['jti:b', 'pair:p'], inAnHour()),
    ]);
    expect(claims.sort()).toEqual([false, true]);
    expect(await store.isUsed(['jti:b'])).toBe(false);
    expect(await store.isUsed(['jti:b', 'pair:p'])).toBe(true);
  });

  it('keeps used keys across a restart when it has a file, releases included', async () => {
    const file = join(temporaryFolder('tollgate-used-'), 'used.jsonl');
    const before = new LocalUsedTokenStore({ file });
    expect(await before.claim(['jti:a', 'pair:p'], inAnHour())).toBe(true);
    expect(await before.claim(['jti:b', 'pair:q'], inAnHour())).toBe(true);
    await before.release(['jti:b', 'pair:q']);

    const after = new LocalUsedTokenStore({ file });
    expect(await after.isUsed(['jti:a'])).toBe(true);
    expect(await after.isUsed(['pair:p'])).toBe(true);
    expect(await after.isUsed(['jti:b', 'pair:q'])).toBe(false);
    expect(await after.claim(['jti:c', 'pair:p'], inAnHour())).toBe(false);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('forgets keys once their links have expired, since the links are refused anyway', async () => {
    let now = 1_000_000;
    const store = new LocalUsedTokenStore({ now: () => now });
    await store.claim(['jti:a'], new Date(now + 1000));
    now += 1000;
    expect(await store.claim(['jti:a'], new Date(now + 1000))).toBe(true);
  });

  it('fails a claim it cannot write down, and keeps nothing of it', async () => {
    const store = new LocalUsedTokenStore({ file: join(tmpdir(), 'no-such-folder-for-tollgate', 'used.jsonl') });
    await expect(store.claim(['jti:a'], inAnHour())).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await store.isUsed(['jti:a'])).toBe(false);
  });
});
