import type { ScriptedReply } from './scripted-reply';

/** Which queue a request was matched to, and the reply it got if one was left. */
export interface QueueTake {
  /** The next reply, or undefined when the matched queue is empty. */
  reply: ScriptedReply | undefined;
  /** The marker whose queue was matched; undefined for the global queue. */
  marker: string | undefined;
}

/**
 * The global reply queue plus one queue per marker.
 * A request whose first user message contains a marker is answered only from that marker's queue, never the
 * global one: tests sharing a server must not take each other's replies. Of several markers it contains, the
 * one scripted first that still has replies answers.
 *
 * A marker that is one bracketed token (`[case-7-ab12]`, the usual kind) is found by looking up each bracketed
 * run of the message, so a request costs the same however many markers a long run (a benchmark scripts
 * thousands) has scripted; other markers are searched for one by one.
 */
export class ReplyQueues {
  private readonly global: ScriptedReply[] = [];
  private readonly byMarker = new Map<string, { order: number; queue: ScriptedReply[] }>();
  private readonly unbracketed: string[] = [];

  /** Appends replies to the global queue. */
  push(replies: readonly ScriptedReply[]): void {
    this.global.push(...replies);
  }

  /** Appends replies to the queue of `marker`, creating it. */
  pushFor(marker: string, replies: readonly ScriptedReply[]): void {
    if (marker === '') throw new Error('scripted model server: a marker must not be empty');
    let entry = this.byMarker.get(marker);
    if (!entry) {
      entry = { order: this.byMarker.size, queue: [] };
      this.byMarker.set(marker, entry);
      if (!isBracketed(marker)) this.unbracketed.push(marker);
    }
    entry.queue.push(...replies);
  }

  /** Takes the next reply for a request whose first user message is `firstUserText`. */
  take(firstUserText: string): QueueTake {
    const matching = this.markersIn(firstUserText);
    const withReplies = matching.find((marker) => (this.byMarker.get(marker)?.queue.length ?? 0) > 0);
    if (withReplies) return { reply: this.byMarker.get(withReplies)?.queue.shift(), marker: withReplies };
    const firstMatch = matching[0];
    if (firstMatch) return { reply: undefined, marker: firstMatch };
    return { reply: this.global.shift(), marker: undefined };
  }

  /** Replies left for `marker`, or in every queue when no marker is given. */
  remaining(marker?: string): number {
    if (marker !== undefined) return this.byMarker.get(marker)?.queue.length ?? 0;
    let total = this.global.length;
    for (const { queue } of this.byMarker.values()) total += queue.length;
    return total;
  }

  /** Empties every queue and forgets the markers. */
  clear(): void {
    this.global.length = 0;
    this.byMarker.clear();
    this.unbracketed.length = 0;
  }

  /** The scripted markers `text` contains, the first scripted first. */
  private markersIn(text: string): string[] {
    const found = new Set<string>();
    // A bracketed marker has no `]` before its last character, so where it occurs it runs from a `[` to the next `]`.
    for (let open = text.indexOf('['); open !== -1; open = text.indexOf('[', open + 1)) {
      const close = text.indexOf(']', open + 1);
      if (close === -1) break;
      const run = text.slice(open, close + 1);
      if (this.byMarker.has(run)) found.add(run);
    }
    for (const marker of this.unbracketed) if (text.includes(marker)) found.add(marker);
    const order = (marker: string) => this.byMarker.get(marker)?.order ?? 0;
    return [...found].sort((a, b) => order(a) - order(b));
  }
}

/** Whether `marker` is one bracketed token: `[`, anything but `]`, then `]`. */
function isBracketed(marker: string): boolean {
  return /^\[[^\]]*\]$/.test(marker);
}
