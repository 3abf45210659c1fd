import type { TurnEvent } from '../protocol';

/** Events kept per turn; beyond it the oldest go (the count says how many), so a long turn stays bounded. */
const maxEventsKept = 500;

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
}
