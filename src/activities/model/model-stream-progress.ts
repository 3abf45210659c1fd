import { Context } from '@temporalio/activity';
import type { ToolResultPart } from '../../protocol';
import { answerTextLimits } from './bound-answer-text';

/** The `type` of the heartbeat details a streaming model call reports. */
export const modelStreamHeartbeatType = 'tollgate-model-stream';

/**
 * How far a streaming model call has got, as its activity heartbeats it: everything so far, not a delta, so a
 * reader that misses a heartbeat loses nothing. It lives in the activity's pending state on the Temporal server,
 * never in the workflow's history.
 */
export interface ModelStreamProgress {
  type: typeof modelStreamHeartbeatType;
  /** The activity attempt that produced it; a retry starts again from nothing. */
  attempt: number;
  /** The text so far. */
  text: string;
  /** The reasoning so far (models that send it). */
  reasoning: string;
  /** Tool calls begun so far, in order. */
  toolCalls: Array<{ toolCallId: string; toolName: string }>;
  /**
   * Results of the tools the same activity ran before calling the model (the previous step's last tool): its
   * checkpoint, so a retry does not run them again, and what a chat shows before the model has answered.
   */
  toolResults?: ToolResultPart[];
}

/** True for heartbeat details written by {@link ModelStreamReporter}. */
export function isModelStreamProgress(value: unknown): value is ModelStreamProgress {
  if (typeof value !== 'object' || value === null) return false;
  const progress = value as Partial<ModelStreamProgress>;
  return (
    progress.type === modelStreamHeartbeatType &&
    typeof progress.text === 'string' &&
    typeof progress.reasoning === 'string' &&
    Array.isArray(progress.toolCalls)
  );
}

/** Where progress goes: an activity heartbeat, or nowhere outside an activity. */
export type ModelStreamSink = (progress: ModelStreamProgress) => void;

/** The activity attempt this runs in (1 outside an activity). */
export function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/**
 * Collects a model's stream as it arrives and reports the accumulation at most every `intervalMs`, plus once at
 * the end, so that a 500-token answer costs a handful of heartbeats and no history events at all. An answer that
 * streams in less than `intervalMs` is reported by its activity's result alone: each heartbeat is a write on the
 * Temporal server, and nobody can watch a stream that short.
 *
 * @example
 * const reporter = new ModelStreamReporter(StepHeartbeat.current().sink);
 * for await (const chunk of stream) reporter.addText(chunk.choices[0]?.delta.content ?? '');
 * reporter.flush();
 */
export class ModelStreamReporter {
  private readonly progress: ModelStreamProgress;
  private lastReportAt = Date.now();
  private reported = false;
  private dirty = false;

  constructor(
    private readonly sink: ModelStreamSink | undefined,
    private readonly intervalMs = 250,
    attempt: number = currentAttempt(),
  ) {
    this.progress = { type: modelStreamHeartbeatType, attempt, text: '', reasoning: '', toolCalls: [] };
  }

  /** The text so far. */
  get text(): string {
    return this.progress.text;
  }

  /** The reasoning so far. */
  get reasoning(): string {
    return this.progress.reasoning;
  }

  addText(delta: string | null | undefined): void {
    if (!delta) return;
    this.progress.text += delta;
    this.changed();
  }

  addReasoning(delta: string | null | undefined): void {
    if (!delta) return;
    this.progress.reasoning += delta;
    this.changed();
  }

  addToolCall(toolCallId: string, toolName: string): void {
    this.progress.toolCalls.push({ toolCallId, toolName });
    this.changed();
  }

  /** At the end of the stream: reports what has not been reported yet, if the stream was reported at all. */
  flush(): void {
    if (this.reported) this.report();
  }

  private report(): void {
    if (!this.dirty || !this.sink) return;
    this.dirty = false;
    this.reported = true;
    this.lastReportAt = Date.now();
    // Heartbeat details have Temporal's payload limit too: a very long answer shows live up to what the step keeps.
    const { text, reasoning } = this.progress;
    this.sink({
      ...this.progress,
      text: text.length > answerTextLimits.stepBytes ? text.slice(0, answerTextLimits.stepBytes) : text,
      reasoning:
        reasoning.length > answerTextLimits.stepBytes ? reasoning.slice(0, answerTextLimits.stepBytes) : reasoning,
      toolCalls: [...this.progress.toolCalls],
    });
  }

  private changed(): void {
    this.dirty = true;
    if (Date.now() - this.lastReportAt >= this.intervalMs) this.report();
  }
}
