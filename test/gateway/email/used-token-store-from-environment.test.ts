import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { usedTokenStoreFromEnvironment } from '../../../src/gateway/email/email-extension-from-environment';
import { LocalUsedTokenStore, SharedUsedTokenStore } from '../../../src/gateway/email/used-token-store';

const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-used-links-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('where a gateway keeps used email links', () => {
  it('is the store folder by default, so two gateways on one state folder refuse each other’s used links', async () => {
    const environment = { TOLLGATE_STATE_DIR: path.join(folder, 'state') };
    const [a, b] = [usedTokenStoreFromEnvironment(environment), usedTokenStoreFromEnvironment(environment)];
    const expires = new Date(Date.now() + 60_000);
    await expect(a.claim(['link'], expires)).resolves.toBe(true);
    await expect(b.isUsed(['link'])).resolves.toBe(true);
    await expect(b.claim(['link'], expires)).resolves.toBe(false);
  });

  it('is TOLLGATE_EMAIL_USED_TOKENS_FILE with a folder store, and the shared bucket with an S3 store', () => {
    const file = path.join(folder, 'used.jsonl');
    expect(usedTokenStoreFromEnvironment({ TOLLGATE_EMAIL_USED_TOKENS_FILE: file })).toBeInstanceOf(
      LocalUsedTokenStore,
    );
    expect(
      usedTokenStoreFromEnvironment({
        TOLLGATE_EMAIL_USED_TOKENS_FILE: file,
        TOLLGATE_STORE_URL: 's3://tollgate/prod',
      }),
    ).toBeInstanceOf(SharedUsedTokenStore);
  });
});
