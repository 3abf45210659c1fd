import type { S3Client } from '@aws-sdk/client-s3';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { awsS3 } from './aws-s3';
import type { ContentStore } from './content-store';
import { FileContentStore } from './file-content-store';
import { S3ContentStore } from './s3-content-store';
import { stateFolderFromEnvironment } from '../state-folder';

/** The content store a URL names, and how to say which it is. */
export interface NamedContentStore {
  store: ContentStore;
  /** A folder's absolute path, or `s3://bucket/prefix`. */
  description: string;
}

/**
 * The store `url` names: `s3://bucket/prefix` for an S3-compatible bucket, `file:///path` or a plain path for a
 * folder (relative to the working directory). S3's endpoint, region and credentials come from the AWS SDK's own
 * environment (`AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`, profiles, …); with a
 * custom endpoint (MinIO, SeaweedFS) addressing is path-style.
 *
 * @throws Error for a URL of another scheme, or an `s3://` URL without a bucket.
 * @example
 * const { store } = contentStoreFromUrl('s3://tollgate/prod');
 */
export function contentStoreFromUrl(url: string, environment: NodeJS.ProcessEnv = process.env): NamedContentStore {
  const location = storeLocationFromUrl(url);
  if (location.kind === 'folder') return { store: new FileContentStore(location.folder), description: location.folder };
  const store = new S3ContentStore(s3ClientFromEnvironment(environment), {
    bucket: location.bucket,
    prefix: location.prefix,
  });
  return { store, description: store.url };
}

/** Where a store URL points: a folder (absolute), or a bucket and a key prefix (`''` or ending in `/`). */
export type StoreLocation = { kind: 'folder'; folder: string } | { kind: 's3'; bucket: string; prefix: string };

/**
 * The location `url` names, as {@link contentStoreFromUrl} reads it.
 *
 * @throws Error for a URL of another scheme, or an `s3://` URL without a bucket.
 */
export function storeLocationFromUrl(url: string): StoreLocation {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'file') {
    return { kind: 'folder', folder: path.resolve(scheme === 'file' ? fileURLToPath(url) : url) };
  }
  if (scheme !== 's3') {
    throw new Error(`TOLLGATE_STORE_URL "${url}" is neither s3://bucket/prefix nor a folder (a path or file:///path).`);
  }
  const [bucket = '', ...rest] = url.slice('s3://'.length).split('/');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new Error(`TOLLGATE_STORE_URL "${url}" names no valid bucket: write s3://<bucket>/<prefix>.`);
  }
  const joined = rest.filter((segment) => segment.length > 0).join('/');
  return { kind: 's3', bucket, prefix: joined.length > 0 ? `${joined}/` : '' };
}

/**
 * An S3 client configured by the AWS SDK's environment; with a custom endpoint, path-style. Credentials are read
 * from `environment` itself only when it is not `process.env` (the SDK reads that one on its own).
 */
export function s3ClientFromEnvironment(environment: NodeJS.ProcessEnv = process.env): S3Client {
  const endpoint = environment.AWS_ENDPOINT_URL_S3 || environment.AWS_ENDPOINT_URL || undefined;
  const credentials =
    environment !== process.env && environment.AWS_ACCESS_KEY_ID && environment.AWS_SECRET_ACCESS_KEY
      ? { accessKeyId: environment.AWS_ACCESS_KEY_ID, secretAccessKey: environment.AWS_SECRET_ACCESS_KEY }
      : undefined;
  return new (awsS3().S3Client)({
    ...(endpoint && { endpoint, forcePathStyle: true }),
    region: environment.AWS_REGION || environment.AWS_DEFAULT_REGION || 'us-east-1',
    ...(credentials && { credentials }),
    // Transient errors (5xx, throttling, dropped connections) are tried again, with backoff.
    maxAttempts: 5,
  });
}

/**
 * The store URL the environment names: `TOLLGATE_STORE_URL`; else `TOLLGATE_STORE_DIR`; else the folder `store` in
 * `TOLLGATE_STATE_DIR` (default `.tollgate`).
 */
export function storeUrlFromEnvironment(environment: NodeJS.ProcessEnv = process.env): string {
  const url = environment.TOLLGATE_STORE_URL?.trim();
  if (url) return url;
  const folder = environment.TOLLGATE_STORE_DIR?.trim();
  if (folder) return folder;
  return path.join(stateFolderFromEnvironment(environment), 'store');
}

/**
 * The store a worker and a client use when they are given none: the folder `.tollgate/store` under the working
 * directory, the embedded default for one machine.
 */
export function defaultContentStore(): ContentStore {
  return namedContentStoreFromEnvironment({}).store;
}

/**
 * The store the environment names: `TOLLGATE_STORE_URL`; else `TOLLGATE_STORE_DIR` (a folder, kept for existing set-ups);
 * else the folder `store` in `TOLLGATE_STATE_DIR` (default `.tollgate`), the embedded default for one machine.
 */
export function contentStoreFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ContentStore {
  return namedContentStoreFromEnvironment(environment).store;
}

/** {@link contentStoreFromEnvironment}, with what it chose, for start-up lines. */
export function namedContentStoreFromEnvironment(environment: NodeJS.ProcessEnv = process.env): NamedContentStore {
  return contentStoreFromUrl(storeUrlFromEnvironment(environment), environment);
}
