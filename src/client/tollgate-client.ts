import {
  Client,
  Connection,
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  agentTurnInputSchema,
  canonicalJson,
  type AgentTurnResult,
  type AgentTurnStatePage,
  type ModelMessage,
  type RecordedDecision,
  type SubmitToolOutputInput,
  type ToolResultPart,
  type TranscriptPointer,
  toolApprovalDecisionSchema,
  userText,
  workflowIdOfApproval,
  type AgentTurnInput,
  type AgentTurnState,
  type ConversationInput,
  type ConversationState,
  type SendMessageInput,
  type SendMessageResult,
  type PendingToolApproval,
  type ToolApprovalDecision,
} from '../protocol';
import type { agentTurn } from '../workflows/turn/agent-turn';
import type { conversation } from '../workflows/conversation/conversation';
import {
  agentTurnStateQuery,
  agentTurnWorkflowType,
  conversationStateQuery,
  conversationWorkflowType,
  sendMessageUpdate,
  decisionErrorTypes,
  pendingApprovalsSearchAttribute,
  requesterSearchAttribute,
  pendingToolApprovalsQuery,
  respondToToolApprovalsUpdate,
  submitToolOutputUpdate,
  toolApprovalResponseSignal,
} from '../workflows/definitions';
import { appendTranscript, defaultContentStore, readTranscript, type ContentStore } from '../store';
import { fitTurnInput } from './fit-turn-input';
import {
  ApprovalDecisionError,
  isApprovalDecisionError,
  type ApprovalDecisionErrorCode,
} from './approval-decision-error';
import { judgeDecisionsOnClosedTurn } from './judge-closed-turn';
import { taskQueuesFilter } from './task-queues-filter';
import { defaultTaskQueue, type TemporalSettings } from './temporal-settings';

/** A pending approval and the turn it belongs to. */
export interface PendingApprovalOfTurn extends PendingToolApproval {
  workflowId: string;
}

/** A decision without its approvalId, as `decide` takes it. */
export type Decision = Omit<ToolApprovalDecision, 'approvalId'>;

const codeOfErrorType = Object.fromEntries(
  Object.entries(decisionErrorTypes).map(([code, type]) => [type, code]),
) as Record<string, ApprovalDecisionErrorCode>;

/** How a {@link TollgateClient} connects: {@link TemporalSettings} fit, and so do plain options. */
export interface TollgateClientOptions extends Partial<TemporalSettings> {
  /** Temporal's host and port (default `localhost:7233`); `connectionOptions` carries TLS and API keys. */
  address?: string;
  /** Where large turn inputs go: the workers' content store (default the folder `.tollgate/store`). */
  store?: ContentStore;
}

/**
 * Starts turns and decides approvals: the typed client the CLI, the gateway and services use.
 *
 * @example
 * const tollgate = await TollgateClient.connect();
 * const handle = await tollgate.startTurn({ messages: [{ role: 'user', content: 'run ls' }] });
 * const [approval] = await tollgate.pending({ workflowId: handle.workflowId });
 * await tollgate.decide(approval.approvalId, { approved: true, approver: 'ana' });
 */
export class TollgateClient {
  constructor(
    readonly client: Client,
    readonly taskQueue: string = defaultTaskQueue,
    private readonly closeConnection?: () => Promise<void>,
    /**
     * Where turns keep transcripts and large outputs: the workers' store (default: the one the environment names, else
     * the folder `.tollgate/store`). A gateway on this client checks that a folder store lies outside the tools'
     * workspace.
     */
    readonly store: ContentStore = defaultContentStore(),
    /** More task queues whose turns this client lists (`pending`, the gateway's lists); `taskQueue` is always one. */
    watchedTaskQueues: readonly string[] = [],
  ) {
    this.taskQueues = [...new Set([taskQueue, ...watchedTaskQueues])];
  }

  /** Every task queue whose turns this client lists and decides, the one it starts turns on first. */
  readonly taskQueues: readonly string[];

  /**
   * Connects to Temporal. Every setting is an option, with Temporal's local defaults (`localhost:7233`, namespace
   * `default`, task queue `tollgate`); `temporalSettingsFromEnvironment()` reads them as the binaries do.
   *
   * @example
   * const tollgate = await TollgateClient.connect({ address: 'localhost:7233', taskQueue: 'refunds' });
   * const fromEnvironment = await TollgateClient.connect(temporalSettingsFromEnvironment());
   */
  static async connect(options: TollgateClientOptions = {}): Promise<TollgateClient> {
    const connectionOptions = {
      ...options.connectionOptions,
      address: options.address ?? options.connectionOptions?.address ?? 'localhost:7233',
    };
    const connection = await Connection.connect(connectionOptions as Parameters<typeof Connection.connect>[0]);
    const client = new Client({ connection, namespace: options.namespace ?? 'default' });
    return new TollgateClient(
      client,
      options.taskQueue ?? defaultTaskQueue,
      () => connection.close(),
      options.store ?? defaultContentStore(),
      options.taskQueues ?? [],
    );
  }

  /** Closes the connection if this client opened it. */
  async close(): Promise<void> {
    await this.closeConnection?.();
  }

  /** Starts a turn. The input is checked first, so a mistake is reported here and nothing starts. */
  async startTurn(
    input: AgentTurnInput,
    options: { workflowId?: string } = {},
  ): Promise<WorkflowHandle<typeof agentTurn>> {
    const parsed = agentTurnInputSchema.safeParse(input);
    if (!parsed.success) throw new TypeError(`Invalid turn input: ${z.prettifyError(parsed.error)}`);
    return this.client.workflow.start<typeof agentTurn>(agentTurnWorkflowType, {
      taskQueue: this.taskQueue,
      workflowId: options.workflowId ?? newTurnId(),
      args: [await this.fitted(parsed.data)],
      typedSearchAttributes: [
        { key: pendingApprovalsSearchAttribute, value: [] },
        // Who asked, so that a person can list a requester's turns from the start (the turn sets it too, revision 9).
        ...(parsed.data.requester !== undefined
          ? [{ key: requesterSearchAttribute, value: parsed.data.requester }]
          : []),
      ],
      staticSummary: summarise(parsed.data),
    });
  }

  /**
   * The input as it can travel to the workflow: when it is too large for Temporal's payloads, the messages before the
   * last user message go to the content store as the turn's transcript (the worker reads them back for the model);
   * a `TurnInputTooLarge` error when even the rest is too large, before anything starts.
   */
  private async fitted(input: AgentTurnInput): Promise<AgentTurnInput> {
    const plan = fitTurnInput(input);
    if (plan.kind === 'inline') return input;
    const transcript = await appendTranscript(this.store, input.transcript, plan.stored);
    return { ...input, messages: plan.inline, ...(transcript !== undefined && { transcript }) };
  }

  /** The handle of an existing turn. */
  turn(workflowId: string): WorkflowHandle<typeof agentTurn> {
    return this.client.workflow.getHandle<typeof agentTurn>(workflowId);
  }

  /** A turn's status, messages so far (or a page of them), pending approvals and audit. */
  async state(workflowId: string, page?: AgentTurnStatePage): Promise<AgentTurnState> {
    return page
      ? this.turn(workflowId).query(agentTurnStateQuery, page)
      : this.turn(workflowId).query(agentTurnStateQuery);
  }

  /**
   * Pending approvals of one turn, or of every running turn. Listing every turn goes through
   * visibility (eventually consistent); each turn's list comes from its own query, so it is exact.
   */
  async pending(options: { workflowId?: string } = {}): Promise<PendingApprovalOfTurn[]> {
    const workflowIds: string[] = [];
    if (options.workflowId) {
      workflowIds.push(options.workflowId);
    } else {
      const query = `WorkflowType = '${agentTurnWorkflowType}' AND ExecutionStatus = 'Running' AND ${taskQueuesFilter(this.taskQueues)}`;
      for await (const execution of this.client.workflow.list({ query })) workflowIds.push(execution.workflowId);
    }
    const lists = await Promise.all(
      workflowIds.map(async (workflowId) => {
        try {
          const pending = await this.turn(workflowId).query(pendingToolApprovalsQuery);
          return pending.map((approval) => ({ ...approval, workflowId }));
        } catch (error) {
          // A turn that finished between the listing and the query has nothing pending.
          if (options.workflowId) throw error;
          return [];
        }
      }),
    );
    return lists.flat().sort((first, second) => first.requestedAt.localeCompare(second.requestedAt));
  }

  /**
   * The workflow an approvalId belongs to. Tollgate's ids carry their workflow id, so this needs no
   * visibility query; for foreign ids it falls back to the pending-approvals search attribute.
   */
  async workflowIdOf(approvalId: string): Promise<string> {
    const embedded = workflowIdOfApproval(approvalId);
    if (embedded) return embedded;
    const query = `${pendingApprovalsSearchAttribute.name} = '${approvalId.replace(/'/g, "\\'")}'`;
    for await (const execution of this.client.workflow.list({ query })) return execution.workflowId;
    throw new ApprovalDecisionError(`Unknown approvalId "${approvalId}".`, 'unknown-approval', approvalId, undefined);
  }

  /**
   * Decides one approval through the validated update: resolves to the recorded decision, or
   * rejects with an {@link ApprovalDecisionError} (unknown, conflicting, expired, turn closed).
   */
  async decide(approvalId: string, decision: Decision): Promise<RecordedDecision> {
    const workflowId = await this.workflowIdOf(approvalId);
    const [recorded] = await this.decideMany(workflowId, [{ ...decision, approvalId }]);
    return recorded as RecordedDecision;
  }

  /**
   * Decides several approvals of one turn at once; all are applied or none. Each result says what
   * this request did (`recorded`, `repeat`, `vote-recorded`). The update id is derived from the
   * decisions, so a retried request is recognised by Temporal and writes nothing new. On a closed
   * turn, the same rules the turn applies judge the decisions against its recorded outcome.
   */
  async decideMany(workflowId: string, responses: ToolApprovalDecision[]): Promise<RecordedDecision[]> {
    const approvalId = responses.length === 1 ? responses[0]?.approvalId : undefined;
    try {
      return await this.turn(workflowId).executeUpdate(respondToToolApprovalsUpdate, {
        args: [{ responses }],
        updateId: `decide-${createHash('sha256').update(canonicalJson(responses)).digest('hex').slice(0, 40)}`,
      });
    } catch (error) {
      const failure = toDecisionError(error, approvalId, workflowId);
      if (isApprovalDecisionError(failure) && failure.code === 'turn-closed') {
        return this.judgeOnClosedTurn(workflowId, responses, failure);
      }
      throw failure;
    }
  }

  /** Judges decisions on a finished turn by the turn's own rules: a repeat is answered, anything else refused. */
  private async judgeOnClosedTurn(
    workflowId: string,
    responses: ToolApprovalDecision[],
    closed: ApprovalDecisionError,
  ): Promise<RecordedDecision[]> {
    let result: AgentTurnResult;
    try {
      result = await this.turn(workflowId).result();
    } catch {
      throw closed;
    }
    return judgeDecisionsOnClosedTurn(workflowId, responses, result);
  }

  /** The output of a client-executed tool call; resolves to the recorded `tool-result` part. */
  async submitToolOutput(workflowId: string, submission: SubmitToolOutputInput): Promise<ToolResultPart> {
    return this.turn(workflowId).executeUpdate(submitToolOutputUpdate, { args: [submission] });
  }

  /** Content a turn keeps in the content store (a large tool output's `providerOptions.tollgate.contentRef`). */
  async readContent(ref: string): Promise<unknown> {
    return this.store.get(ref);
  }

  /** Every message of a stored transcript (a turn's or a conversation's `transcript`). */
  async readTranscript(pointer: TranscriptPointer): Promise<ModelMessage[]> {
    return readTranscript(this.store, pointer);
  }

  /**
   * Sends a user message to a conversation, starting the conversation (with `settings`) if it does
   * not exist yet. Resolves with the id of the turn that answers it, once that turn has started or
   * been queued behind an earlier one.
   */
  async sendMessage(
    conversationId: string,
    message: SendMessageInput,
    settings: ConversationInput = {},
  ): Promise<SendMessageResult> {
    const start = new WithStartWorkflowOperation<typeof conversation>(conversationWorkflowType, {
      workflowId: conversationId,
      taskQueue: this.taskQueue,
      args: [settings],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    return this.client.workflow.executeUpdateWithStart(sendMessageUpdate, {
      args: [message],
      startWorkflowOperation: start,
    });
  }

  /** A conversation's history, running turn, pending approvals and queued messages. */
  async conversationState(conversationId: string): Promise<ConversationState> {
    return this.client.workflow.getHandle<typeof conversation>(conversationId).query(conversationStateQuery);
  }

  /** Sends a decision as the fire-and-forget signal (what a bot in another language would do). */
  async sendDecision(approvalId: string, decision: Decision): Promise<void> {
    const payload = toolApprovalDecisionSchema.parse({ ...decision, approvalId });
    const workflowId = await this.workflowIdOf(approvalId);
    try {
      await this.turn(workflowId).signal(toolApprovalResponseSignal, payload);
    } catch (error) {
      throw toDecisionError(error, approvalId, workflowId);
    }
  }
}

function toDecisionError(error: unknown, approvalId: string | undefined, workflowId: string): Error {
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause as { type?: string; message?: string } | undefined;
    const code = (cause?.type && codeOfErrorType[cause.type]) || 'invalid';
    return new ApprovalDecisionError(cause?.message ?? error.message, code, approvalId, workflowId);
  }
  const name = (error as Error | undefined)?.name;
  const message = (error as Error | undefined)?.message ?? String(error);
  if (
    name === 'WorkflowNotFoundError' ||
    /not found|already completed|workflow execution.*(closed|completed)/i.test(message)
  ) {
    return new ApprovalDecisionError(
      `Turn "${workflowId}" is not waiting for decisions (${message}).`,
      'turn-closed',
      approvalId,
      workflowId,
    );
  }
  return error as Error;
}

function summarise(input: AgentTurnInput): string {
  const last = input.messages.findLast((message) => message.role === 'user');
  const text = last?.role === 'user' ? userText(last.content) : '';
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** A fresh workflow id for a turn: `turn-` and 16 random hex digits. */
export function newTurnId(): string {
  return `turn-${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
}
