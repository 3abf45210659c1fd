import type { ContentRef } from '../protocol';

/**
 * Where Tollgate keeps large content (transcripts, tool outputs) out of Temporal history. Content is
 * addressed by its SHA-256, so storing the same thing twice is harmless and a reference can never
 * point at something else later. History carries only references and short previews.
 */
export interface ContentStore {
  /** Stores `value` (plain JSON data) and returns its reference. */
  put(value: unknown): Promise<ContentRef>;
  /** The value stored under `ref`; fails with `ContentNotFound` if it is not there. */
  get(ref: ContentRef): Promise<unknown>;
}

/** A reference that names no stored content: the store was wiped or points elsewhere. */
export class ContentNotFoundError extends Error {
  override readonly name = 'ContentNotFound';
  constructor(
    readonly ref: ContentRef,
    /** The store that was asked: a folder or `s3://bucket/prefix`. */
    readonly store?: string,
  ) {
    super(
      `Content "${ref}" is not in Tollgate's content store${store ? ` (${store})` : ''}. Every worker, gateway and ` +
        'client must share one store: set TOLLGATE_STORE_URL to the same s3://bucket/prefix (or shared folder) on each.',
    );
  }
}

const refPattern = /^sha256:[0-9a-f]{64}$/;

/** Whether `text` is a well-formed content reference. */
export function isContentRef(text: unknown): text is ContentRef {
  return typeof text === 'string' && refPattern.test(text);
}
