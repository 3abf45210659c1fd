import { Context } from '@temporalio/activity';
import type { ToolResultPart } from '../../protocol';
import {
  isModelStreamProgress,
  modelStreamHeartbeatType,
  type ModelStreamProgress,
  type ModelStreamSink,
} from './model-stream-progress';

/** The longest a keep-alive waits; shorter for short heartbeat timeouts. */
const keepAliveMs = 1_000;

/**
 * The heartbeats of one model-step activity. Each carries the model's progress so far and the results of the tools
 * the activity ran before the model (so a retry after a dead worker does not run them again, and a chat can show
 * them while the model answers). A keep-alive re-sends the latest details between the stream's own reports, so a
 * model slow to start is not taken for a dead worker. Calling `heartbeat` costs nothing on the server by itself: the
 * SDK sends the first at once and then at most one per throttle interval (0.8 × the heartbeat timeout), always the
 * latest, so an attempt that ends within the first keep-alive sends none. Outside an activity that can heartbeat
 * (a direct call, a local activity) it does nothing and gives no sink.
 *
 * @example
 * const heartbeat = StepHeartbeat.current();
 * const stop = heartbeat.keepAlive();
 * try { await callModel(input, heartbeat.sink); } finally { stop(); }
 */
export class StepHeartbeat {
  private latest: ModelStreamProgress;

  private constructor(private readonly context: Context | undefined) {
    this.latest = {
      type: modelStreamHeartbeatType,
      attempt: context?.info.attempt ?? 1,
      text: '',
      reasoning: '',
      toolCalls: [],
    };
  }

  /**
   * The heartbeat of the activity this runs in; one that does nothing outside an activity (a direct call in a test
   * or a script) and in a local activity, which has no heartbeat.
   */
  static current(): StepHeartbeat {
    let context: Context | undefined;
    try {
      context = Context.current();
    } catch {
      context = undefined;
    }
    return new StepHeartbeat(context?.info.isLocal ? undefined : context);
  }

  /** Where the model's stream reports; undefined where nobody could watch it. */
  get sink(): ModelStreamSink | undefined {
    if (!this.context) return undefined;
    return (progress) => {
      this.latest = { ...progress, ...(this.latest.toolResults && { toolResults: this.latest.toolResults }) };
      this.send();
    };
  }

  /** The result an earlier attempt of this activity checkpointed for `toolCallId`, if it reached the server. */
  checkpointed(toolCallId: string): ToolResultPart | undefined {
    const details: unknown = this.context?.info.heartbeatDetails;
    if (!isModelStreamProgress(details)) return undefined;
    return details.toolResults?.find((result) => result.toolCallId === toolCallId);
  }

  /** Every later heartbeat carries `toolResults`; the next keep-alive sends them if nothing else does first. */
  checkpoint(toolResults: ToolResultPart[]): void {
    this.latest = { ...this.latest, toolResults };
  }

  /** Starts the keep-alive; returns what stops it. */
  keepAlive(): () => void {
    const context = this.context;
    if (!context) return () => {};
    const every = Math.max(100, Math.min(keepAliveMs, (context.info.heartbeatTimeoutMs ?? 30_000) / 3));
    const timer = setInterval(() => this.send(), every);
    return () => clearInterval(timer);
  }

  private send(): void {
    this.context?.heartbeat(this.latest);
  }
}
