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
  constructor(readonly ref: ContentRef) {
    super(
      `Content "${ref}" is not in Tollgate's content store. The worker, the gateway and clients must share one store (TOLLGATE_STORE_DIR).`,
    );
  }
}

const refPattern = /^sha256:[0-9a-f]{64}$/;

/** Whether `text` is a well-formed content reference. */
export function isContentRef(text: unknown): text is ContentRef {
  return typeof text === 'string' && refPattern.test(text);
}
