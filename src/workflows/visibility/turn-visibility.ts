import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { getExternalWorkflowHandle, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PendingToolApproval } from '../../protocol';
import {
  approversSearchAttribute,
  pendingApprovalsSearchAttribute,
  requesterSearchAttribute,
  turnPendingApprovalsSignal,
  waitingToolsSearchAttribute,
} from '../definitions';
import {
  describeTurn,
  eligibleApprovers,
  type TurnActivityNow,
  type TurnPicture,
  type WaitingApproval,
} from './describe-turn';

/** What the turn shows, read when it is shown; what it is doing now the visibility tracks itself. */
export interface TurnVisibilitySource {
  /** The turn's approvals, decisions, settings as they are now. */
  picture(): Omit<TurnPicture, 'doing' | 'status'>;
  /**
   * Changes whenever anything `picture` reads changes (a counter of each thing it reads), so the details are rendered
   * only when they can have changed. Whatever is added to the picture must be added here too.
   */
  version(): string;
  /** Who may decide each waiting approval, beyond what the approval itself says. */
  waiting(pending: readonly PendingToolApproval[]): WaitingApproval[];
  /** Search attributes say which tools wait, who may decide and who asked (turn revision 9 on). */
  searchesByPerson(): boolean;
}

/**
 * The one place a turn shows what it waits for and what it does: the search attributes (inboxes, `temporal workflow
 * list`, the Temporal UI's list), the Temporal UI's current details, and the parent conversation. Search attributes
 * and the conversation's signal are written only when the set of pending approvals changes, so they cost history
 * once per change; the details (no command, no history) follow everything at once.
 */
export class TurnVisibility {
  private shownAttribute = '';
  private shownPending = '';
  private shownDetails = '';
  /** What the details were last rendered from: nothing new to render while it stays the same. */
  private renderedFrom = '';
  private modelStep: number | undefined;
  private readonly tools = new Map<string, { toolName: string; input: unknown }>();
  private thenModelStep: number | undefined;
  private finishedAs: TurnPicture['status'] | undefined;

  constructor(
    private readonly workflowId: string,
    private readonly parentWorkflowId: string | undefined,
    private readonly source: TurnVisibilitySource,
  ) {}

  /** Shows `pending` everywhere, in the workflow task that calls it. */
  publish(pending: readonly PendingToolApproval[]): void {
    // In this order: the upsert's command comes before the conversation's signal in histories already written.
    this.publishAttribute(pending);
    this.publishDetails(pending);
  }

  /**
   * Shows `pending` in the Temporal UI's current details and the conversation, and not yet in the search attribute:
   * that follows with the turn's next `publish`, in a workflow task the turn makes anyway (its tool and the model's
   * answer done, new approvals, the end). Of the three it alone costs the Temporal server a write of its own (a
   * visibility update), and a decided turn usually ends soon after.
   */
  publishDetails(pending: readonly PendingToolApproval[]): void {
    this.refresh();
    const key = keyOf(pending);
    if (key === this.shownPending) return;
    this.shownPending = key;
    if (this.parentWorkflowId !== undefined) {
      // A conversation shows its turn's pending approvals; if it is gone, the turn does not care.
      void getExternalWorkflowHandle(this.parentWorkflowId)
        .signal(turnPendingApprovalsSignal, { turnId: this.workflowId, pending: [...pending] })
        .catch(() => undefined);
    }
  }

  /** A model step starts (undefined: it ended). */
  modelStepStarted(step: number | undefined): void {
    this.modelStep = step;
    this.refresh();
  }

  /** A tool starts to run, with `thenModelStep` when the next model step runs in the same activity. */
  toolStarted(toolCallId: string, call: { toolName: string; input: unknown }, thenModelStep?: number): void {
    this.tools.set(toolCallId, { toolName: call.toolName, input: call.input });
    this.thenModelStep = thenModelStep;
    this.refresh();
  }

  /** A tool (and the model step run with it) is done. */
  toolEnded(toolCallId: string): void {
    this.tools.delete(toolCallId);
    if (this.tools.size === 0) this.thenModelStep = undefined;
    this.refresh();
  }

  /** The turn ended: from now on its details are its outcome and decisions. */
  finished(status: TurnPicture['status']): void {
    this.finishedAs = status;
    this.modelStep = undefined;
    this.tools.clear();
    this.refresh();
  }

  /**
   * Writes the details again if anything in them changed (a decision, a vote, an ignored signal). A turn asks for
   * this many times in a workflow task; they are rendered only when what they are rendered from changed.
   */
  refresh(): void {
    const from = `${this.source.version()}|${this.finishedAs ?? 'running'}|${this.doingKey()}`;
    if (from === this.renderedFrom) return;
    this.renderedFrom = from;
    const details = describeTurn({
      ...this.source.picture(),
      status: this.finishedAs ?? 'running',
      doing: this.doing(),
    });
    if (details === this.shownDetails) return;
    this.shownDetails = details;
    setCurrentDetails(details);
  }

  private doingKey(): string {
    const tools = this.tools.size === 0 ? '' : [...this.tools.keys()].join(',');
    return `${tools}|${this.thenModelStep ?? ''}|${this.modelStep ?? ''}`;
  }

  private doing(): TurnActivityNow {
    if (this.tools.size > 0) {
      return {
        type: 'tools',
        calls: [...this.tools.values()],
        ...(this.thenModelStep !== undefined && { thenModelStep: this.thenModelStep }),
      };
    }
    if (this.modelStep !== undefined) return { type: 'model-step', step: this.modelStep };
    return { type: 'idle' };
  }

  private publishAttribute(pending: readonly PendingToolApproval[]): void {
    const key = keyOf(pending);
    if (key === this.shownAttribute) return;
    this.shownAttribute = key;
    const waits = pending.length > 0;
    const updates: SearchAttributeUpdatePair[] = [
      { key: pendingApprovalsSearchAttribute, value: waits ? pending.map(({ approvalId }) => approvalId) : null },
    ];
    if (this.source.searchesByPerson()) {
      const { requester } = this.source.picture();
      updates.push(
        { key: waitingToolsSearchAttribute, value: waits ? distinct(pending.map(({ toolName }) => toolName)) : null },
        {
          key: approversSearchAttribute,
          value: waits ? eligibleApprovers(this.source.waiting(pending), requester) : null,
        },
      );
      if (requester !== undefined) updates.push({ key: requesterSearchAttribute, value: requester });
    }
    upsertSearchAttributes(updates);
  }
}

function keyOf(pending: readonly PendingToolApproval[]): string {
  return pending.map((approval) => approval.approvalId).join(',');
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}
