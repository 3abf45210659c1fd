import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileContentStore } from '../../src/store/file-content-store';
import { appendTranscript, readTranscript } from '../../src/store/transcript';

describe('readTranscript', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-store-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('reads every piece, oldest first', async () => {
    const store = new FileContentStore(folder);
    const first = await appendTranscript(store, undefined, [{ role: 'user', content: 'one' }]);
    const head = await appendTranscript(store, first, [{ role: 'assistant', content: 'two' }]);
    expect(await readTranscript(store, { head: head as string, tail: [{ role: 'user', content: 'three' }] })).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
      { role: 'user', content: 'three' },
    ]);
  });

  it('says by name whether a piece is missing or is not a transcript', async () => {
    const store = new FileContentStore(folder);
    const other = await store.put({ type: 'text', value: 'a tool output' });
    await expect(readTranscript(store, { head: other, tail: [] })).rejects.toMatchObject({
      name: 'NotATranscript',
      message: `Content "${other}" is not a transcript.`,
    });
    const missing = `sha256:${'0'.repeat(64)}`;
    await expect(readTranscript(store, { head: missing, tail: [] })).rejects.toMatchObject({ name: 'ContentNotFound' });
  });
});
