import type { S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import type { ContentRef } from '../protocol';
import { awsS3, s3StatusOf } from './aws-s3';
import { ContentNotFoundError, isContentRef, type ContentStore } from './content-store';
import { RecentValues } from './recent-values';

/** Where an {@link S3ContentStore} keeps its values. */
export interface S3Location {
  bucket: string;
  /** Key prefix, `''` or ending in `/`. */
  prefix: string;
}

/**
 * A content store in an S3-compatible bucket (AWS S3, MinIO, SeaweedFS), shared by every worker, gateway and client
 * that names the same bucket and prefix. Values are objects named by their SHA-256 under the prefix; a write is a
 * conditional `PutObject` (`If-None-Match: *`), so storing what is already there changes nothing and never rewrites
 * it. The AWS SDK retries transient errors (5xx, throttling, dropped connections); a missing object is
 * `ContentNotFound`, as for the folder store.
 *
 * @example
 * const store = new S3ContentStore(new S3Client({}), { bucket: 'tollgate', prefix: 'prod/' });
 * const ref = await store.put({ role: 'user', content: 'hi' });
 */
export class S3ContentStore implements ContentStore {
  private readonly recent: RecentValues;

  constructor(
    private readonly client: S3Client,
    readonly location: S3Location,
    /** Values kept in memory; a turn's next step reads what its last one wrote. */
    cacheSize = 2_000,
  ) {
    this.recent = new RecentValues(cacheSize);
  }

  /** `s3://bucket/prefix`, for messages. */
  get url(): string {
    return `s3://${this.location.bucket}/${this.location.prefix}`;
  }

  async put(value: unknown): Promise<ContentRef> {
    const text = JSON.stringify(value);
    const ref: ContentRef = `sha256:${createHash('sha256').update(text).digest('hex')}`;
    if (!this.recent.has(ref)) {
      try {
        await this.client.send(
          new (awsS3().PutObjectCommand)({
            Bucket: this.location.bucket,
            Key: this.keyOf(ref),
            Body: text,
            ContentType: 'application/json',
            IfNoneMatch: '*',
          }),
        );
      } catch (error) {
        // Already stored (by this process earlier, or another machine): the content is the same by its name.
        if (!isAlreadyThere(error)) throw error;
      }
    }
    this.recent.remember(ref, JSON.parse(text));
    return ref;
  }

  async get(ref: ContentRef): Promise<unknown> {
    if (!isContentRef(ref)) throw new TypeError(`"${String(ref)}" is not a content reference (sha256:<64 hex>).`);
    if (this.recent.has(ref)) return this.recent.get(ref);
    let text: string;
    try {
      const object = await this.client.send(
        new (awsS3().GetObjectCommand)({ Bucket: this.location.bucket, Key: this.keyOf(ref) }),
      );
      text = (await object.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      if (isMissing(error)) throw new ContentNotFoundError(ref, this.url);
      throw error;
    }
    const value: unknown = JSON.parse(text);
    this.recent.remember(ref, value);
    return value;
  }

  private keyOf(ref: ContentRef): string {
    const hex = ref.slice('sha256:'.length);
    return `${this.location.prefix}${hex.slice(0, 2)}/${hex}`;
  }
}

function isAlreadyThere(error: unknown): boolean {
  // 412: the object exists (If-None-Match: *); 409: a concurrent conditional write of the same key is in progress.
  const status = s3StatusOf(error);
  return status === 412 || status === 409;
}

function isMissing(error: unknown): boolean {
  return (error as { name?: string }).name === 'NoSuchKey' || s3StatusOf(error) === 404;
}
