import type { SubmitToolOutputInput, ToolCallPart, ToolResultOutput } from '../../protocol';
import { toolOutputErrorTypes } from '../definitions';

/** Whether a submission can be recorded. */
export type OutputCheck =
  | { accepted: true; repeat: boolean }
  | { accepted: false; type: (typeof toolOutputErrorTypes)[keyof typeof toolOutputErrorTypes]; message: string };

/** Client calls and their outputs, carried over when a turn continues as new. */
export interface ClientToolOutputsSnapshot {
  calls: ToolCallPart[];
  waiting: string[];
  received: Array<{ toolCallId: string; submission: string; output: ToolResultOutput }>;
}

/**
 * Client-executed tool calls waiting for their output, and the outputs received. The first output
 * wins; the same submission again is harmless; a different one is refused.
 */
export class ClientToolOutputs {
  private readonly calls = new Map<string, ToolCallPart>();
  private readonly waiting = new Set<string>();
  private readonly received = new Map<string, { submission: string; output: ToolResultOutput }>();
  /** Counts every change to what waits and what was received. */
  changes = 0;

  /** Starts waiting for the output of `call`. */
  expect(call: ToolCallPart): void {
    this.changes += 1;
    this.calls.set(call.toolCallId, call);
    this.waiting.add(call.toolCallId);
  }

  /** Calls still waiting. */
  awaiting(): Array<{ toolCallId: string; toolName: string; input: unknown }> {
    return [...this.waiting].map((toolCallId) => {
      const { toolName, input } = this.calls.get(toolCallId) as ToolCallPart;
      return { toolCallId, toolName, input };
    });
  }

  /** The call a submission is for, waiting or answered. */
  callOf(toolCallId: string): ToolCallPart | undefined {
    return this.calls.get(toolCallId);
  }

  /** The recorded output of a call, if any. */
  outputOf(toolCallId: string): ToolResultOutput | undefined {
    return this.received.get(toolCallId)?.output;
  }

  /** Checks a submission against what is waiting and what was received. */
  check(submission: SubmitToolOutputInput): OutputCheck {
    const recorded = this.received.get(submission.toolCallId);
    if (recorded) {
      if (recorded.submission === JSON.stringify(submission)) return { accepted: true, repeat: true };
      return {
        accepted: false,
        type: toolOutputErrorTypes.conflict,
        message: `Tool call "${submission.toolCallId}" already has an output; the first one wins.`,
      };
    }
    if (!this.waiting.has(submission.toolCallId)) {
      return {
        accepted: false,
        type: toolOutputErrorTypes.unknown,
        message: `Tool call "${submission.toolCallId}" is not waiting for a client's output.`,
      };
    }
    return { accepted: true, repeat: false };
  }

  /** Whether the call is waiting for its output now. */
  isAwaiting(toolCallId: string): boolean {
    return this.waiting.has(toolCallId) && !this.received.has(toolCallId);
  }

  /** What a turn that continues as new carries. */
  snapshot(): ClientToolOutputsSnapshot {
    return {
      calls: [...this.calls.values()],
      waiting: [...this.waiting],
      received: [...this.received].map(([toolCallId, entry]) => ({ toolCallId, ...entry })),
    };
  }

  /** Takes up what a turn carried over. */
  restore(snapshot: ClientToolOutputsSnapshot): void {
    this.changes += 1;
    for (const call of snapshot.calls) this.calls.set(call.toolCallId, call);
    for (const toolCallId of snapshot.waiting) this.waiting.add(toolCallId);
    for (const { toolCallId, submission, output } of snapshot.received) {
      this.received.set(toolCallId, { submission, output });
    }
  }

  /** Records the output of a waiting call. */
  record(submission: SubmitToolOutputInput, output: ToolResultOutput): void {
    this.changes += 1;
    this.waiting.delete(submission.toolCallId);
    this.received.set(submission.toolCallId, { submission: JSON.stringify(submission), output });
  }
}
