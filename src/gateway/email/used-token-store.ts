import { appendFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { SharedRecords } from '../../store/shared-records';

/**
 * Where used decision links are remembered. `claim` must be atomic: of two concurrent claims sharing a
 * key, one gets `true` and the other `false`, so one link decides once, and one of a pair retires the other.
 */
export interface UsedTokenStore {
  /** Marks every key used unless one of them already is; true when this call marked them. */
  claim(keys: readonly string[], expiresAt: Date): Promise<boolean>;
  /** Whether any of the keys is used. */
  isUsed(keys: readonly string[]): Promise<boolean>;
  /** Gives keys back after a decision that could not be delivered, so the same link can try again. */
  release(keys: readonly string[]): Promise<void>;
}

interface UsedTokenLine {
  /** Keys claimed, with when they stop mattering (ms since the epoch). */
  claimed?: string[];
  expiresAt?: number;
  /** Keys given back. */
  released?: string[];
}

/**
 * Used links in memory and, when `file` is set, in an append-only JSONL file read back at start-up, so
 * a restarted gateway still refuses a used link. A key is forgotten once its link has expired, since the
 * link is then refused anyway. One gateway process per file: several gateways need a shared store
 * implementing {@link UsedTokenStore}.
 *
 * @example
 * const usedTokens = new LocalUsedTokenStore({ file: '/var/lib/tollgate/used-email-links.jsonl' });
 * const gateway = await createGateway({ tollgate, tokens, extensions: [emailExtension({ secrets, usedTokens })] });
 */
export class LocalUsedTokenStore implements UsedTokenStore {
  private readonly used = new Map<string, number>();
  private readonly file: string | undefined;
  private readonly now: () => number;
  // Appends run one after another, so lines keep the order of the claims and releases they record.
  private writes: Promise<void> = Promise.resolve();

  constructor(options: { file?: string; now?: () => number } = {}) {
    this.file = options.file;
    this.now = options.now ?? Date.now;
    if (this.file && existsSync(this.file)) this.load(readFileSync(this.file, 'utf8'));
  }

  async claim(keys: readonly string[], expiresAt: Date): Promise<boolean> {
    this.forgetExpired();
    // Checked and set in one synchronous step: no other claim can run in between.
    if (keys.some((key) => this.used.has(key))) return false;
    const until = expiresAt.getTime();
    for (const key of keys) this.used.set(key, until);
    try {
      await this.append({ claimed: [...keys], expiresAt: until });
    } catch (error) {
      // Not on disk means not safe across a restart: the claim fails rather than half-holds.
      for (const key of keys) this.used.delete(key);
      throw error;
    }
    return true;
  }

  async isUsed(keys: readonly string[]): Promise<boolean> {
    return keys.some((key) => this.used.has(key));
  }

  async release(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.used.delete(key);
    await this.append({ released: [...keys] });
  }

  private async append(line: UsedTokenLine): Promise<void> {
    const file = this.file;
    if (!file) return;
    const write = this.writes.then(() =>
      appendFile(file, `${JSON.stringify(line)}\n`, { encoding: 'utf8', mode: 0o600 }),
    );
    this.writes = write.catch(() => undefined);
    await write;
  }

  private load(text: string): void {
    for (const row of text.split('\n')) {
      if (row.trim() === '') continue;
      let line: UsedTokenLine;
      try {
        line = JSON.parse(row) as UsedTokenLine;
      } catch {
        // A line cut short by a crash: the claims before it still count.
        continue;
      }
      if (Array.isArray(line.claimed) && typeof line.expiresAt === 'number') {
        for (const key of line.claimed) this.used.set(String(key), line.expiresAt);
      }
      if (Array.isArray(line.released)) for (const key of line.released) this.used.delete(String(key));
    }
    this.forgetExpired();
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [key, until] of this.used) if (until <= now) this.used.delete(key);
  }
}

/**
 * Used links kept in {@link SharedRecords} (the shared store location: a folder or an S3 bucket), one record per key
 * named by its SHA-256, created with a conditional create. Every gateway naming the same store agrees: a link used
 * through one is refused by the others, and of two concurrent claims of one key, through any gateways, one wins.
 * Keys are claimed in one fixed order; a claim that meets a used key gives back the keys it had taken.
 *
 * @example
 * const usedTokens = new SharedUsedTokenStore(sharedRecordsFromUrl('s3://tollgate/prod'));
 */
export class SharedUsedTokenStore implements UsedTokenStore {
  private lastSweep = 0;
  // Where the next sweep starts: record names are digests, so a sweep walks the folder a page at a time.
  private sweepAfter: string | undefined;

  /**
   * `sweep`: how often a claim may also remove records of links that have expired (they are refused by their own
   * expiry anyway), and how many records one sweep reads; without it, records stay until `sweepExpired` is called.
   */
  constructor(
    private readonly records: SharedRecords,
    private readonly sweep: { everyMs: number; limit: number; now?: () => Date } = { everyMs: 3_600_000, limit: 500 },
  ) {}

  /**
   * Removes the records of expired links among the next `limit` records (from where the last sweep stopped), so the
   * shared store does not keep every link ever used. Returns how many it removed.
   */
  async sweepExpired(limit = this.sweep.limit): Promise<number> {
    const now = (this.sweep.now?.() ?? new Date()).getTime();
    const names = await this.records.list(usedLinksFolder, {
      ...(this.sweepAfter !== undefined && { after: this.sweepAfter }),
      limit,
    });
    // A short page is the folder's end: the next sweep starts again from its beginning.
    this.sweepAfter = names.length === limit ? names.at(-1) : undefined;
    let removed = 0;
    for (const name of names) {
      const body = await this.records.read(name);
      let expiresAt = Number.NaN;
      try {
        expiresAt = Date.parse((JSON.parse(body ?? '{}') as { expiresAt?: string }).expiresAt ?? '');
      } catch {
        // Unreadable (still being written by another gateway): left for a later sweep.
      }
      if (Number.isFinite(expiresAt) && expiresAt <= now) {
        await this.records.remove(name);
        removed++;
      }
    }
    return removed;
  }

  /** Starts a sweep when the last began more than `everyMs` ago; it runs beside the claim and never fails it. */
  private sweepSometimes(): void {
    const now = (this.sweep.now?.() ?? new Date()).getTime();
    if (now - this.lastSweep < this.sweep.everyMs) return;
    this.lastSweep = now;
    void this.sweepExpired().catch(() => undefined);
  }

  async claim(keys: readonly string[], expiresAt: Date): Promise<boolean> {
    const names = namesOf(keys);
    const body = JSON.stringify({ expiresAt: expiresAt.toISOString() });
    const taken: string[] = [];
    try {
      for (const name of names) {
        if (!(await this.records.create(name, body))) {
          await this.giveBack(taken);
          return false;
        }
        taken.push(name);
      }
    } catch (error) {
      // Not recorded means not safe: the claim fails rather than half-holds.
      await this.giveBack(taken).catch(() => undefined);
      throw error;
    }
    this.sweepSometimes();
    return true;
  }

  async isUsed(keys: readonly string[]): Promise<boolean> {
    const found = await Promise.all(namesOf(keys).map((name) => this.records.read(name)));
    return found.some((body) => body !== undefined);
  }

  async release(keys: readonly string[]): Promise<void> {
    await this.giveBack(namesOf(keys));
  }

  private async giveBack(names: readonly string[]): Promise<void> {
    await Promise.all(names.map((name) => this.records.remove(name)));
  }
}

// Keys are token identifiers; the record names only their digest, and sorted, so every claim takes them in one order.
/** The shared records' folder of used links (and ended inbox sessions). */
const usedLinksFolder = 'used-email-links';

function namesOf(keys: readonly string[]): string[] {
  const names = [...new Set(keys)].map((key) => `${usedLinksFolder}/${createHash('sha256').update(key).digest('hex')}`);
  return names.sort();
}
