import type { S3Client } from '@aws-sdk/client-s3';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { awsS3, s3StatusOf } from './aws-s3';
import {
  s3ClientFromEnvironment,
  storeLocationFromUrl,
  storeUrlFromEnvironment,
} from './content-store-from-environment';

/**
 * Small named records every process naming the same store location shares: used email links, the decision audit.
 * A name is `folder/file` (letters, digits, `.`, `_`, `-`); `create` is atomic across processes and machines: of two
 * creates of one name, exactly one returns true. Records are never rewritten.
 */
export interface SharedRecords {
  /** The location, for messages: a folder or `s3://bucket/prefix/records/`. */
  readonly description: string;
  /** Creates the record unless it exists; true when this call created it. */
  create(name: string, body: string): Promise<boolean>;
  /** The record's body, or undefined when there is none. */
  read(name: string): Promise<string | undefined>;
  /** Removes the record (nothing when there is none). */
  remove(name: string): Promise<void>;
  /**
   * The names in `folder` (full names, `folder/file`), in byte order of their names; with `page`, only those after
   * `page.after` (a full name) and at most `page.limit` of them.
   */
  list(folder: string, page?: ListPage): Promise<string[]>;
}

/** A window of a listing: the names after one (exclusive), at most so many. */
export interface ListPage {
  after?: string;
  limit?: number;
}

/** The names of `sorted` (in byte order) that fall in `page`. */
function windowOf(sorted: string[], page: ListPage | undefined): string[] {
  const after = page?.after;
  const from =
    after === undefined ? sorted : sorted.filter((name) => Buffer.compare(Buffer.from(name), Buffer.from(after)) > 0);
  return page?.limit === undefined ? from : from.slice(0, page.limit);
}

const namePattern = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/;
const folderPattern = /^[A-Za-z0-9._-]+$/;

function checkName(name: string): void {
  if (!namePattern.test(name) || name.split('/').some((part) => part === '.' || part === '..')) {
    throw new TypeError(`"${name}" is not a shared record name (folder/file).`);
  }
}

function checkFolder(folder: string): void {
  if (!folderPattern.test(folder) || folder === '.' || folder === '..') {
    throw new TypeError(`"${folder}" is not a shared record folder.`);
  }
}

/**
 * Records as files in a folder; `create` is an exclusive create (`open(…, 'wx')`), atomic for every process that
 * sees the folder (one machine, or a network file system that honours O_EXCL).
 */
export class FolderSharedRecords implements SharedRecords {
  constructor(readonly folder: string) {}

  get description(): string {
    return this.folder;
  }

  async create(name: string, body: string): Promise<boolean> {
    checkName(name);
    const file = path.join(this.folder, name);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      await writeFile(file, body, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }

  async read(name: string): Promise<string | undefined> {
    checkName(name);
    try {
      return await readFile(path.join(this.folder, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async remove(name: string): Promise<void> {
    checkName(name);
    await rm(path.join(this.folder, name), { force: true });
  }

  async list(folder: string, page?: ListPage): Promise<string[]> {
    checkFolder(folder);
    let files: string[];
    try {
      files = await readdir(path.join(this.folder, folder));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const names = files
      .filter((file) => folderPattern.test(file))
      .map((file) => `${folder}/${file}`)
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return windowOf(names, page);
  }
}

/**
 * Records as objects in an S3-compatible bucket under `prefix`; `create` is a conditional `PutObject`
 * (`If-None-Match: *`), which S3, MinIO and SeaweedFS refuse with 412 when the object exists.
 */
export class S3SharedRecords implements SharedRecords {
  constructor(
    private readonly client: S3Client,
    readonly location: { bucket: string; prefix: string },
  ) {}

  get description(): string {
    return `s3://${this.location.bucket}/${this.location.prefix}`;
  }

  async create(name: string, body: string): Promise<boolean> {
    checkName(name);
    try {
      await this.client.send(
        new (awsS3().PutObjectCommand)({
          Bucket: this.location.bucket,
          Key: this.location.prefix + name,
          Body: body,
          ContentType: 'application/json',
          IfNoneMatch: '*',
        }),
      );
      return true;
    } catch (error) {
      // 412: it exists; 409: another conditional write of it is under way (and will win).
      const status = s3StatusOf(error);
      if (status === 412 || status === 409) return false;
      throw error;
    }
  }

  async read(name: string): Promise<string | undefined> {
    checkName(name);
    try {
      const object = await this.client.send(
        new (awsS3().GetObjectCommand)({ Bucket: this.location.bucket, Key: this.location.prefix + name }),
      );
      return (await object.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey' || s3StatusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async remove(name: string): Promise<void> {
    checkName(name);
    await this.client.send(
      new (awsS3().DeleteObjectCommand)({ Bucket: this.location.bucket, Key: this.location.prefix + name }),
    );
  }

  async list(folder: string, page?: ListPage): Promise<string[]> {
    checkFolder(folder);
    const prefix = `${this.location.prefix}${folder}/`;
    const names: string[] = [];
    let token: string | undefined;
    // S3 starts a listing after a key of our choice, so a page does not read what comes before it.
    const startAfter = page?.after?.startsWith(`${folder}/`) ? this.location.prefix + page.after : undefined;
    do {
      const listed = await this.client.send(
        new (awsS3().ListObjectsV2Command)({
          Bucket: this.location.bucket,
          Prefix: prefix,
          ContinuationToken: token,
          ...(token === undefined && startAfter !== undefined && { StartAfter: startAfter }),
          ...(page?.limit !== undefined && { MaxKeys: Math.min(1000, page.limit - names.length) }),
        }),
      );
      for (const object of listed.Contents ?? []) {
        const file = object.Key?.slice(prefix.length);
        if (file && folderPattern.test(file)) names.push(`${folder}/${file}`);
      }
      token = listed.IsTruncated ? listed.NextContinuationToken : undefined;
    } while (token && (page?.limit === undefined || names.length < page.limit));
    // S3 lists in byte order already; sorted again (and windowed) for stores that do not.
    return windowOf(
      names.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      page,
    );
  }
}

/**
 * The shared records beside the content store `url` names: the folder `records` inside a folder store, the key
 * prefix `records/` under an S3 store's prefix. Every process naming the same store shares them.
 *
 * @example
 * const records = sharedRecordsFromUrl('s3://tollgate/prod');
 * await records.create('used-email-links/abc', '{}');
 */
export function sharedRecordsFromUrl(url: string, environment: NodeJS.ProcessEnv = process.env): SharedRecords {
  const location = storeLocationFromUrl(url);
  if (location.kind === 'folder') return new FolderSharedRecords(path.join(location.folder, 'records'));
  return new S3SharedRecords(s3ClientFromEnvironment(environment), {
    bucket: location.bucket,
    prefix: `${location.prefix}records/`,
  });
}

/**
 * The name of a record of the decision audit (`audit/<time>-<12 hex>.json`): named by time, so that listing returns
 * records in time order and a window is read from its first moment. Gateways and workers (grant uses) write them.
 */
export function auditRecordName(time: Date, suffix: string): string {
  return `audit/${auditRecordTime(time)}-${suffix}.json`;
}

/** A time as audit record names begin with it: ISO 8601 without colons, so names sort by time. */
export function auditRecordTime(time: Date): string {
  return time.toISOString().replace(/:/g, '');
}

/** The shared records beside the content store the environment names (see `contentStoreFromEnvironment`). */
export function sharedRecordsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): SharedRecords {
  return sharedRecordsFromUrl(storeUrlFromEnvironment(environment), environment);
}
