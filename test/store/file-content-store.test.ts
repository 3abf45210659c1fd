import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ContentNotFoundError } from '../../src/store/content-store';
import { FileContentStore } from '../../src/store/file-content-store';

/** Two values whose files share a folder (the first two hex digits of their hash). */
function twoValuesInOneFolder(): [unknown, unknown] {
  const seen = new Map<string, number>();
  for (let index = 0; ; index++) {
    const prefix = createHash('sha256').update(JSON.stringify({ index })).digest('hex').slice(0, 2);
    const earlier = seen.get(prefix);
    if (earlier !== undefined) return [{ index: earlier }, { index }];
    seen.set(prefix, index);
  }
}

describe('FileContentStore', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-store-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('keeps a value in a file named by its hash, readable by another store on the same folder', async () => {
    const ref = await new FileContentStore(folder).put({ role: 'user', content: 'hi' });
    const hex = ref.slice('sha256:'.length);
    const file = path.join(folder, hex.slice(0, 2), hex);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ role: 'user', content: 'hi' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await expect(new FileContentStore(folder).get(ref)).resolves.toEqual({ role: 'user', content: 'hi' });
  });

  it('writes into a folder that was removed after it was made', async () => {
    const [first, second] = twoValuesInOneFolder();
    const store = new FileContentStore(folder);
    await store.put(first);
    rmSync(folder, { recursive: true, force: true });
    const ref = await store.put(second);
    await expect(new FileContentStore(folder).get(ref)).resolves.toEqual(second);
  });

  it('says which reference is missing', async () => {
    const missing = `sha256:${'0'.repeat(64)}`;
    await expect(new FileContentStore(folder).get(missing)).rejects.toBeInstanceOf(ContentNotFoundError);
  });
});
