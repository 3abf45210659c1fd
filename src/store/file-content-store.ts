import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ContentRef } from '../protocol';
import { ContentNotFoundError, isContentRef, type ContentStore } from './content-store';
import { RecentValues } from './recent-values';

/**
 * A content store in a folder: one file per value, named by its hash, written atomically (temp file,
 * then rename), so a crash never leaves a half-written value under a valid name. Good for one
 * machine or a shared volume; a cluster of workers needs a shared folder or another store.
 *
 * @example
 * const store = new FileContentStore('.tollgate/store');
 * const ref = await store.put({ role: 'user', content: 'hi' });
 */
export class FileContentStore implements ContentStore {
  private readonly recent: RecentValues;
  /** Sub-folders known to exist (at most 256), so a write costs no mkdir once its folder is made. */
  private readonly folders = new Set<string>();

  constructor(
    readonly folder: string,
    /** Values kept in memory, most recent first; a turn's next step reads what its last one wrote. */
    cacheSize = 2_000,
  ) {
    this.recent = new RecentValues(cacheSize);
  }

  async put(value: unknown): Promise<ContentRef> {
    const text = JSON.stringify(value);
    const ref: ContentRef = `sha256:${createHash('sha256').update(text).digest('hex')}`;
    if (!this.recent.has(ref)) {
      const file = this.fileOf(ref);
      await this.write(file, text);
    }
    this.recent.remember(ref, JSON.parse(text));
    return ref;
  }

  async get(ref: ContentRef): Promise<unknown> {
    if (!isContentRef(ref)) throw new TypeError(`"${String(ref)}" is not a content reference (sha256:<64 hex>).`);
    if (this.recent.has(ref)) return this.recent.get(ref);
    let text: string;
    try {
      text = await readFile(this.fileOf(ref), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ContentNotFoundError(ref, this.folder);
      throw error;
    }
    const value: unknown = JSON.parse(text);
    this.recent.remember(ref, value);
    return value;
  }

  /** Writes atomically; makes the file's folder the first time, and again if it was removed since. */
  private async write(file: string, text: string): Promise<void> {
    const folder = path.dirname(file);
    if (!this.folders.has(folder)) await mkdir(folder, { recursive: true });
    this.folders.add(folder);
    const temporary = `${file}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, text, { mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(folder, { recursive: true });
      await writeFile(temporary, text, { mode: 0o600 });
    }
    await rename(temporary, file);
  }

  private fileOf(ref: ContentRef): string {
    const hex = ref.slice('sha256:'.length);
    return path.join(this.folder, hex.slice(0, 2), hex);
  }
}
