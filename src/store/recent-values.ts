import type { ContentRef } from '../protocol';

/** The most recently used stored values, at most `size`, so a turn's next step reads what its last one wrote. */
export class RecentValues {
  private readonly values = new Map<ContentRef, unknown>();

  constructor(private readonly size: number) {}

  has(ref: ContentRef): boolean {
    return this.values.has(ref);
  }

  get(ref: ContentRef): unknown {
    return this.values.get(ref);
  }

  remember(ref: ContentRef, value: unknown): void {
    this.values.delete(ref);
    this.values.set(ref, value);
    if (this.values.size > this.size) this.values.delete(this.values.keys().next().value as ContentRef);
  }
}
