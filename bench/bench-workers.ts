/** What a measurement needs of the worker processes that run one system's turns. */
export interface BenchWorkers {
  /** The processes, whose CPU time is summed. */
  readonly pids: readonly number[];
  /** Resolves with the time the tool of `turn` started on any of them, or rejects after `timeoutMs`. */
  toolStarted(turn: string, timeoutMs: number): Promise<number>;
  /** How many times a tool of `turn` started, on all of them. */
  toolStartCount(turn: string): number;
  /** Their resident memory together, after a garbage collection in each (bytes). */
  residentBytes(): Promise<number>;
}
