import type { TurnEvent } from '../../protocol';

/** Events kept per turn; beyond it the oldest go (the count says how many), so a long turn stays bounded. */
const maxEventsKept = 500;

/** A turn's event log, carried over when the turn continues as new. */
export interface TurnEventLogSnapshot {
  events: TurnEvent[];
  dropped: number;
}

/** What happened in a turn, in order, bounded. */
export class TurnEventLog {
  private readonly events: TurnEvent[] = [];
  private dropped = 0;

  note(type: TurnEvent['type'], step: number, fields: Omit<TurnEvent, 'type' | 'at' | 'step'> = {}): void {
    if (this.events.length >= maxEventsKept) {
      this.events.shift();
      this.dropped += 1;
    }
    this.events.push({ type, at: new Date().toISOString(), step, ...fields });
  }

  /** The events kept, oldest first. */
  list(): TurnEvent[] {
    return [...this.events];
  }

  /** How many early events were let go. */
  droppedCount(): number {
    return this.dropped;
  }

  /** The log as a turn that continues as new carries it. */
  snapshot(): TurnEventLogSnapshot {
    return { events: this.list(), dropped: this.dropped };
  }

  /** Takes up the log a turn carried over (before anything is noted). */
  restore(snapshot: TurnEventLogSnapshot): void {
    this.events.splice(0, this.events.length, ...snapshot.events.slice(-maxEventsKept));
    this.dropped = snapshot.dropped;
  }
}
