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
 * global one: tests sharing a server must not take each other's replies.
 */
export class ReplyQueues {
  private readonly global: ScriptedReply[] = [];
  private readonly byMarker = new Map<string, ScriptedReply[]>();

  /** Appends replies to the global queue. */
  push(replies: readonly ScriptedReply[]): void {
    this.global.push(...replies);
  }

  /** Appends replies to the queue of `marker`, creating it. */
  pushFor(marker: string, replies: readonly ScriptedReply[]): void {
    if (marker === '') throw new Error('scripted model server: a marker must not be empty');
    const queue = this.byMarker.get(marker) ?? [];
    queue.push(...replies);
    this.byMarker.set(marker, queue);
  }

  /** Takes the next reply for a request whose first user message is `firstUserText`. */
  take(firstUserText: string): QueueTake {
    const matching = [...this.byMarker.entries()].filter(([marker]) => firstUserText.includes(marker));
    const withReplies = matching.find(([, queue]) => queue.length > 0);
    if (withReplies) return { reply: withReplies[1].shift(), marker: withReplies[0] };
    const firstMatch = matching[0];
    if (firstMatch) return { reply: undefined, marker: firstMatch[0] };
    return { reply: this.global.shift(), marker: undefined };
  }

  /** Replies left for `marker`, or in every queue when no marker is given. */
  remaining(marker?: string): number {
    if (marker !== undefined) return this.byMarker.get(marker)?.length ?? 0;
    let total = this.global.length;
    for (const queue of this.byMarker.values()) total += queue.length;
    return total;
  }

  /** Empties every queue and forgets the markers. */
  clear(): void {
    this.global.length = 0;
    this.byMarker.clear();
  }
}
