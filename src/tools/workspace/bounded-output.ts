import { StringDecoder } from 'node:string_decoder';
import { utf8Suffix } from './cap-text';

/**
 * Collects a stream's output within a byte budget, keeping its beginning and its end: a command's first lines say
 * what it did and its last lines usually hold the error or the summary. Memory stays bounded however much it prints.
 */
export class BoundedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private totalBytes = 0;

  constructor(private readonly maxBytes: number) {
    this.headLimit = Math.floor(maxBytes / 2);
    this.tailLimit = maxBytes - this.headLimit;
  }

  /** Whether more was written than fits. */
  get truncated(): boolean {
    return this.totalBytes > this.maxBytes;
  }

  /** Adds a chunk as it arrives. */
  append(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    const headRoom = this.headLimit - this.headBytes;
    if (headRoom > 0) {
      const part = rest.subarray(0, headRoom);
      this.head.push(part);
      this.headBytes += part.length;
      rest = rest.subarray(part.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0] as Buffer).length >= this.tailLimit) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  /** The output as text; when it did not fit, its beginning and end around a note saying how much was left out. */
  text(): string {
    if (!this.truncated) return Buffer.concat([...this.head, ...this.tail]).toString('utf8');
    // The decoder holds back a character cut in half at the end of the head instead of garbling it.
    const headText = new StringDecoder('utf8').write(Buffer.concat(this.head));
    const tailText = utf8Suffix(Buffer.concat(this.tail), this.tailLimit);
    const omitted = this.totalBytes - Buffer.byteLength(headText) - Buffer.byteLength(tailText);
    return `${headText}\n[... ${omitted} bytes omitted: output capped at ${this.maxBytes} bytes ...]\n${tailText}`;
  }
}
