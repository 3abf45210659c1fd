import type { WorkflowExecutionDescription } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { TollgateClient } from '../../client';
import { isModelStreamProgress, type ModelStreamProgress } from '../../activities/model/model-stream-progress';
import type { AgentTurnResult } from '../../protocol';
import { agentTurnStateQuery } from '../../workflows/definitions';
import { requesterOf } from '../auth/turn-requester';
import { FullOutputs } from './full-outputs';
import type { TurnSnapshot } from './turn-snapshot';

/**
 * Reads a turn cheaply and often: `describe` every time (a server call that needs no worker and carries the model
 * activity's heartbeat), the `agentTurnState` query only when the history has grown since the last read, and the
 * stored result once the turn has closed. Large tool outputs come back in full, each read from the store once.
 */
export class TurnReader {
  private lastHistoryLength = -1;
  private last: TurnSnapshot | undefined;
  private readonly outputs: FullOutputs;
  /** Who started the turn: read from its history once, when it first has approvals to show. */
  private requester: Promise<string | undefined> | undefined;

  constructor(
    private readonly tollgate: TollgateClient,
    readonly turnId: string,
  ) {
    // Only this turn's own outputs come back in full.
    this.outputs = new FullOutputs(tollgate, (turn) => turn === undefined || turn === turnId);
  }

  async read(): Promise<TurnSnapshot> {
    const snapshot = await this.readState();
    if (snapshot.pending.length === 0) return snapshot;
    // Only what the page offers hangs on it (the gateway judges every decision): a failed read offers as before.
    this.requester ??= requesterOf(this.tollgate, this.turnId).catch(() => undefined);
    const requester = await this.requester;
    return requester === undefined ? snapshot : { ...snapshot, requester };
  }

  private async readState(): Promise<TurnSnapshot> {
    const handle = this.tollgate.turn(this.turnId);
    let description: WorkflowExecutionDescription;
    try {
      description = await handle.describe();
    } catch (error) {
      if ((error as Error).name === 'WorkflowNotFoundError') return notStarted();
      throw error;
    }
    const running = description.status.name === 'RUNNING';
    if (!running) return this.closed(description);
    if (this.last === undefined || description.historyLength !== this.lastHistoryLength) {
      const state = await handle.query(agentTurnStateQuery);
      this.lastHistoryLength = description.historyLength;
      this.last = {
        status: state.status,
        closed: false,
        messages: await this.outputs.of(state.messages),
        pending: state.pending,
        audit: state.audit,
        awaitingOutput: state.awaitingOutput,
        ...(state.subAgentsWorking !== undefined && { subAgentsWorking: state.subAgentsWorking }),
      };
      // The query may have seen more than the description did: a model step that landed in between would come
      // back as the next step's progress. The heartbeat counts only from a description of the same history.
      const after = await handle.describe();
      if (after.status.name !== 'RUNNING' || after.historyLength !== description.historyLength) {
        this.lastHistoryLength = -1;
        return this.last;
      }
      description = after;
    }
    const streaming = await this.modelProgress(description);
    return { ...this.last, ...(streaming && { streaming }) };
  }

  private async closed(description: WorkflowExecutionDescription): Promise<TurnSnapshot> {
    const handle = this.tollgate.turn(this.turnId);
    if (description.status.name === 'COMPLETED') {
      const result = (await handle.result()) as AgentTurnResult;
      return {
        status: result.status,
        closed: true,
        messages: await this.outputs.of(result.messages),
        pending: result.pending,
        audit: result.audit,
        awaitingOutput: [],
      };
    }
    let failure = `The turn ended as ${description.status.name.toLowerCase()}.`;
    try {
      await handle.result();
    } catch (error) {
      const cause = (error as { cause?: Error }).cause;
      failure = cause?.message ?? (error as Error).message;
    }
    return {
      ...(this.last ?? notStarted()),
      status: 'failed',
      closed: true,
      failure,
    };
  }

  /**
   * The in-flight model call's latest heartbeat, from the current attempt only (a retry starts afresh), with the
   * results of tools its activity ran before it. Found by what it reports, not by activity type, so the model step
   * may be any activity that streams through `ModelStreamReporter`.
   */
  private async modelProgress(description: WorkflowExecutionDescription): Promise<ModelStreamProgress | undefined> {
    const converter = this.tollgate.client.workflow.options.loadedDataConverter;
    for (const activity of description.raw.pendingActivities ?? []) {
      const payloads = activity.heartbeatDetails?.payloads;
      if (!payloads || payloads.length === 0) continue;
      const progress = await decodeFromPayloadsAtIndex<unknown>(converter, 0, payloads).catch(() => undefined);
      if (!isModelStreamProgress(progress) || progress.attempt !== (activity.attempt ?? 1)) continue;
      if (!progress.toolResults) return progress;
      // The tools an activity ran before its model call, shown in full like the turn's own messages.
      const [message] = await this.outputs.of([{ role: 'tool', content: progress.toolResults }]);
      const toolResults = (message?.content ?? []).filter((part) => part.type === 'tool-result');
      return { ...progress, toolResults };
    }
    return undefined;
  }
}

function notStarted(): TurnSnapshot {
  return { status: 'not-started', closed: false, messages: [], pending: [], audit: [], awaitingOutput: [] };
}
