import {
  ActivityFailure,
  type LocalActivityOptions,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { TollgateActivities } from '../activities/activity-types';
import type { ModelStepInput, ModelStepOutput, TurnActivities } from '../activities/turn-activity-types';
import type {
  AgentTurnInput,
  AgentTurnResult,
  AgentTurnStatus,
  AssistantContentPart,
  ModelMessage,
  PlannedToolCall,
  ToolContentPart,
  ToolResultOutput,
  ToolResultPart,
  TranscriptPointer,
  TurnSettings,
} from '../protocol';
// Not from the protocol's index, which builds every zod schema in each workflow's module scope.
import { errorText, executionDenied } from '../protocol/denial-and-error-outputs';
import { turnRevisions } from '../protocol/turn-plan';
import { turnInputProblem } from './check-turn-input';
import { ClientToolOutputs } from './client-tool-outputs';
import {
  agentTurnEventsQuery,
  agentTurnStateQuery,
  pendingToolApprovalsQuery,
  supersedeTurnSignal,
} from './definitions';
import { readSupersedeRequest } from './read-supersede-request';
import { registerDecisionHandlers } from './register-decision-handlers';
import { resumeFromMessages } from './resume-from-messages';
import { TurnApprovals } from './turn-approvals';
import { historyIsLarge } from './history-is-large';
import { carryOverOf, type SettlingCalls, type TurnCarryOver } from './turn-carry-over';
import { TurnEventLog } from './turn-event-log';
import { TurnNotices } from './turn-notices';
import { TurnVisibility } from './turn-visibility';
import { answerRetiredPatch, retiredPatches } from './retired-patches';

/** How long one model step may take unless the worker's owner says otherwise. */
const modelStepStartToCloseMs = 180_000;

/**
 * The model-step activities, with the worker owner's limits once they are known (from the first step on):
 * activities, or local activities for a turn that asked for `modelSteps: 'local'`.
 */
function modelSteps(
  input: Pick<AgentTurnInput, 'modelSteps'>,
  settings?: TurnSettings,
): Pick<TurnActivities, 'runModelStep' | 'planResumedCalls'> {
  const limits = settings?.activities?.modelStep;
  const common: LocalActivityOptions = {
    startToCloseTimeout: limits?.startToCloseMs ?? modelStepStartToCloseMs,
    // 4xx answers other than 429 come back as ModelRequestRejected: retrying them cannot help.
    retry: {
      initialInterval: '1s',
      maximumInterval: '1m',
      maximumAttempts: limits?.maximumAttempts ?? 10,
      nonRetryableErrorTypes: ['ModelRequestRejected', 'InvalidAgentTurnInput', 'UnknownTool', 'AutoApproveNotAllowed'],
    },
  };
  // The input is checked in the first model step; until then anything but 'local' means an activity.
  if (input.modelSteps === 'local') return proxyLocalActivities<TurnActivities>(common);
  // The model step heartbeats its streamed progress; a dead worker is noticed in seconds.
  return proxyActivities<TurnActivities>({ ...common, heartbeatTimeout: '30s' });
}

const { validateToolOutput } = proxyActivities<TollgateActivities>({
  startToCloseTimeout: '1m',
  retry: { maximumAttempts: 5 },
});

/**
 * Runs tools. The activity heartbeats while a tool runs, so a dead worker is noticed in seconds, not minutes. With
 * `thenModelStep` the activity runs the next model step after the tool, and may take as long as both.
 */
function toolRunner(settings: TurnSettings, turnSetsLength: boolean, thenModelStep = false): TurnActivities {
  const limits = settings.activities?.tool;
  const toolMs = turnSetsLength
    ? settings.toolTimeouts.startToCloseMs
    : (limits?.startToCloseMs ?? settings.toolTimeouts.startToCloseMs);
  const modelStepMs = thenModelStep ? (settings.activities?.modelStep?.startToCloseMs ?? modelStepStartToCloseMs) : 0;
  return proxyActivities<TurnActivities>({
    startToCloseTimeout: toolMs + modelStepMs,
    heartbeatTimeout: settings.toolTimeouts.heartbeatMs,
    retry: { maximumAttempts: limits?.maximumAttempts ?? 3 },
  });
}

/** A whole number from a query's page argument, read without walking what a caller sent. */
function readCount(page: unknown, key: 'fromMessage' | 'maxMessages'): number | undefined {
  const value = typeof page === 'object' && page !== null ? (page as Record<string, unknown>)[key] : undefined;
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'number' || typeof value === 'string' ? Number(value) : NaN;
  return Math.max(0, Math.floor(number) || 0);
}

/** What `settle` gives for the call it leaves to run with the next model step. */
const withNextStep = 'with-next-step';
type Settled = ToolResultPart | undefined | typeof withNextStep;
/** A call of a step not settled yet. */
const unsettled = 'unsettled';

/** The calls a turn is settling, and what each has come to so far. */
interface Settling {
  kind: SettlingCalls['kind'];
  plans: PlannedToolCall[];
  opened: Array<string | undefined>;
  results: Array<Settled | typeof unsettled>;
}

const noop = () => undefined;

/**
 * One agent turn: call the model, run its tool calls (waiting durably for approval where a tool
 * needs it), feed the results back, until the model answers without tool calls or `maxSteps`.
 *
 * @example
 * const handle = await client.workflow.start(agentTurn, {
 *   taskQueue: 'tollgate',
 *   workflowId: 'turn-42',
 *   args: [{ messages: [{ role: 'user', content: 'run ls' }] }],
 * });
 */
export async function agentTurn(input: AgentTurnInput, carried?: TurnCarryOver): Promise<AgentTurnResult> {
  answerRetiredPatch(retiredPatches.turn);
  refuseUnreadableInput(input);
  return new AgentTurn(input, carried).run();
}

/**
 * Fails the turn at once, clearly, on input that workflow code cannot read (a caller on Temporal can start a turn
 * with anything): reading it would throw in every workflow task, and the turn would never move nor end.
 */
function refuseUnreadableInput(input: unknown): void {
  const problem = turnInputProblem(input);
  if (problem) throw ApplicationFailure.nonRetryable(`Invalid agentTurn input: ${problem}.`, 'InvalidAgentTurnInput');
}

/** One turn's state; {@link run} reads top to bottom. */
class AgentTurn {
  private readonly workflowId = workflowInfo().workflowId;
  private readonly events = new TurnEventLog();
  private readonly approvals = new TurnApprovals(this.workflowId, this.events, () => this.steps);
  private readonly outputs = new ClientToolOutputs();
  private readonly visibility = new TurnVisibility(this.workflowId, workflowInfo().parent?.workflowId);
  private readonly notices: TurnNotices;
  private readonly messages: ModelMessage[] = [];
  private transcript: TranscriptPointer;
  private settings: TurnSettings | undefined;
  private status: AgentTurnStatus = 'running';
  private steps = 0;
  private text = '';
  /** The calls an earlier run was settling when it continued as new. */
  private readonly carriedSettling: SettlingCalls | undefined;
  private continuations = 0;

  constructor(
    private readonly input: AgentTurnInput,
    carriedArgument?: unknown,
  ) {
    this.transcript = { ...(input.transcript !== undefined && { head: input.transcript }), tail: [...input.messages] };
    this.notices = new TurnNotices(
      this.workflowId,
      input.requester,
      this.events,
      () => this.steps,
      () => this.settings?.activities?.notice,
    );
    // Taken up before any handler is set, so that no signal waiting for this run meets an empty turn.
    const { carried, refused } = carryOverOf(carriedArgument);
    if (carried) this.carriedSettling = this.takeUp(carried);
    if (refused) this.events.note('policy-note', 0, { detail: refused });
    registerDecisionHandlers({
      book: this.approvals.book,
      outputs: this.outputs,
      validateOutput: (toolName, submission) => validateToolOutput({ toolName, ...submission }),
      onOutput: (toolCallId, toolName) =>
        this.events.note('tool-output-submitted', this.steps, { toolCallId, toolName }),
    });
    setHandler(supersedeTurnSignal, (payload: unknown) => {
      const request = readSupersedeRequest(payload);
      if ('reason' in request) this.approvals.supersede(request.reason);
      else
        this.approvals.book.ignore(payload, 'invalid', `Invalid supersedeTurn signal: ${request.invalid}.`, new Date());
    });
    setHandler(pendingToolApprovalsQuery, () => this.approvals.book.pending());
    setHandler(agentTurnEventsQuery, () => this.events.list());
    setHandler(agentTurnStateQuery, (page) => {
      const from = readCount(page, 'fromMessage') ?? 0;
      const count = readCount(page, 'maxMessages') ?? this.messages.length;
      return {
        ...this.result(),
        messages: this.messages.slice(from, from + count),
        messageCount: this.messages.length,
        status: this.currentStatus(),
        awaitingOutput: this.outputs.awaiting(),
      };
    });
  }

  async run(): Promise<AgentTurnResult> {
    let carried = this.carriedSettling && this.settlingOf(this.carriedSettling);
    if (!carried) this.events.note('turn-started', 0);
    try {
      if (!carried) {
        if (await this.resume()) return await this.finish('awaiting-approval');
      } else {
        this.showPending();
        if (carried.kind === 'resumed') {
          await this.settleResumed(carried);
          carried = undefined;
        }
      }
      // A model step that ran in one activity with the last tool of the step before it.
      let next: ModelStepOutput | undefined;
      while (carried !== undefined || this.steps < (this.settings?.maxSteps ?? Infinity)) {
        let settling: Settling;
        if (carried) {
          // The step an earlier run of this turn was settling when it continued as new.
          settling = carried;
          carried = undefined;
        } else {
          this.steps += 1;
          const step = next ?? (await modelSteps(this.input, this.settings).runModelStep(this.stepInput()));
          next = undefined;
          this.adopt(step.settings, step.notes);
          this.events.note('model-called', this.steps);
          this.transcript = { head: step.head, tail: [] };
          this.messages.push({ role: 'assistant', content: step.content });
          this.text = step.text;
          if (step.calls.length === 0) return await this.finish('completed');
          const opened = step.calls.map((plan) => this.open(plan));
          this.showPending();
          if (this.halted()) {
            await this.settleWhatNeedsNoPerson(step.calls, opened);
            return await this.finish('awaiting-approval');
          }
          settling = { kind: 'step', plans: step.calls, opened, results: step.calls.map(() => unsettled) };
        }
        const { plans, opened } = settling;
        const results = await this.settleStep(settling);
        const last = results.indexOf(withNextStep);
        if (last >= 0) next = await this.runLastToolWithNextStep(plans, opened, results, last);
        else this.addToolMessage(plans, opened, results as Array<ToolResultPart | undefined>);
        if (this.approvals.superseded()) return await this.finish('superseded');
      }
      return await this.finish('max-steps-reached');
    } catch (error) {
      throw this.failure(error);
    }
  }

  /** Takes up what an earlier run of this turn carried over; returns the calls it was settling. */
  private takeUp(carried: TurnCarryOver): SettlingCalls {
    this.settings = carried.settings;
    this.approvals.book.trustDecisionsFrom(carried.settings.trust, {
      bindsSignatures: (carried.settings.revision ?? 1) >= turnRevisions.boundDecisionSignatures,
    });
    this.steps = carried.steps;
    this.text = carried.text;
    this.messages.push(...carried.messages);
    this.transcript = carried.transcript;
    this.continuations = carried.continuations;
    this.events.restore(carried.events);
    this.approvals.restore(carried.approvals);
    this.outputs.restore(carried.outputs);
    for (const notice of carried.notices) {
      const { approvalId } = notice.approval;
      this.notices.resume(notice, () => this.approvals.book.decisionOf(approvalId));
    }
    return carried.settling;
  }

  /** The calls an earlier run was settling, as this run settles them. */
  private settlingOf(carried: SettlingCalls): Settling {
    return {
      kind: carried.kind,
      plans: carried.plans,
      opened: carried.opened.map((approvalId) => approvalId ?? undefined),
      results: carried.results.map((result) => (result === null ? unsettled : result.part)),
    };
  }

  /**
   * Settles `all` unless the turn's history grows large first (from turn revision 6): then, once nothing runs
   * and the calls only wait (for decisions or a client's output), the turn continues as new with all it holds.
   */
  private async unlessContinuingAsNew(all: Promise<Settled[]>, settling: Settling): Promise<Settled[]> {
    let finished = false;
    const done = all.finally(() => (finished = true));
    const large = condition(() => finished || (historyIsLarge() && this.onlyWaits(settling)));
    await Promise.race([done, large]);
    if (!finished) await this.continueAsNew(settling);
    return all;
  }

  private continuesAsNewWhenLarge(): boolean {
    return (this.settings?.revision ?? 1) >= turnRevisions.continuesAsNewWhenLarge;
  }

  /**
   * True when nothing of the turn runs (no tool, notice or handler) and every call not settled waits for a person:
   * for a decision, or for a client's output. Read from state, never from where a promise has got to.
   */
  private onlyWaits(settling: Settling): boolean {
    if (!allHandlersFinished() || !this.notices.quiet()) return false;
    return settling.plans.every((plan, index) => {
      const result = settling.results[index];
      if (result === withNextStep) return false;
      if (result !== unsettled) return true;
      const approvalId = settling.opened[index];
      if ((plan.kind === 'ask' || plan.kind === 'provider') && approvalId !== undefined) {
        if (!this.approvals.book.decisionOf(approvalId)) return true;
      }
      return plan.kind !== 'reject' && plan.kind !== 'provider' && this.outputs.isAwaiting(plan.call.toolCallId);
    });
  }

  /** Continues as new, carrying everything: the new run takes up the calls where this one leaves them. */
  private async continueAsNew(settling: Settling): Promise<never> {
    const info = workflowInfo();
    this.events.note('turn-continued-as-new', this.steps, {
      detail: `history of ${info.historyLength} events and ${info.historySize} bytes`,
    });
    const carried: TurnCarryOver = {
      version: 1,
      settings: this.settings as TurnSettings,
      steps: this.steps,
      text: this.text,
      messages: this.messages,
      transcript: this.transcript,
      approvals: this.approvals.snapshot(),
      events: this.events.snapshot(),
      outputs: this.outputs.snapshot(),
      notices: this.notices.snapshot(),
      settling: {
        kind: settling.kind,
        plans: settling.plans,
        opened: settling.opened.map((approvalId) => approvalId ?? null),
        results: settling.results.map((result) =>
          result === unsettled ? null : result === undefined || result === withNextStep ? {} : { part: result },
        ),
      },
      continuations: this.continuations + 1,
    };
    return continueAsNew<typeof agentTurn>(this.input, carried);
  }

  /** Continues a halted turn from the messages its caller sent back; true when it halts again. */
  private async resume(): Promise<boolean> {
    const resumed = await resumeFromMessages(
      this.input,
      this.workflowId,
      workflowInfo().runStartTime,
      modelSteps(this.input).planResumedCalls,
    );
    if (!resumed) return false;
    this.adopt(resumed.settings, resumed.notes);
    const opened = resumed.calls.map(({ plan, response }) => {
      const approvalId = this.open(plan);
      if (approvalId !== undefined && response) this.applyMessageDecision(approvalId, response);
      return approvalId;
    });
    this.showPending();
    this.addFreshRequests(resumed.calls.map(({ plan }) => plan));
    const plans = resumed.calls.map(({ plan }) => plan);
    if (this.halted()) {
      await this.settleWhatNeedsNoPerson(plans, opened, false);
      return true;
    }
    if (!this.continuesAsNewWhenLarge()) {
      // As turns before revision 6 ran it, to the microtask: the order of commands in their histories depends on it.
      const results = await Promise.all(plans.map((plan, index) => this.settle(plan, opened[index])));
      this.addToolMessage(plans, opened, results, false);
      return false;
    }
    await this.settleResumed({ kind: 'resumed', plans, opened, results: plans.map(() => unsettled) });
    return false;
  }

  /**
   * Settles the calls a halted turn's messages left open (from revision 6, which may continue as new while they
   * wait); the caller's messages already hold the decisions.
   */
  private async settleResumed(settling: Settling): Promise<void> {
    const { plans, opened, results } = settling;
    const all = Promise.all(
      plans.map((plan, index) => {
        const known = results[index];
        if (known !== unsettled) return known as ToolResultPart | undefined;
        const settled = this.settle(plan, opened[index], undefined, this.awaitsOutput(plan));
        // A side branch that only takes note, so that commands keep the order histories already hold.
        settled.then((result) => (results[index] = result), noop);
        return settled;
      }),
    );
    const settled = await this.unlessContinuingAsNew(all, settling);
    this.addToolMessage(plans, opened, settled as Array<ToolResultPart | undefined>, false);
  }

  /** Whether an earlier run left `plan`'s call waiting for a client's output (its decision and start are recorded). */
  private awaitsOutput(plan: PlannedToolCall): boolean {
    return this.carriedSettling !== undefined && this.outputs.isAwaiting(plan.call.toolCallId);
  }

  /**
   * Open calls of an earlier turn wait under fresh requests of this turn (so a decision by id
   * reaches the turn that waits); the caller sees them as an assistant message of requests.
   */
  private addFreshRequests(plans: PlannedToolCall[]): void {
    const content = plans.flatMap((plan): AssistantContentPart[] =>
      plan.kind === 'ask' && !this.approvals.book.decisionOf(plan.approval.approvalId)
        ? [
            {
              type: 'tool-approval-request',
              approvalId: plan.approval.approvalId,
              toolCallId: plan.call.toolCallId,
              ...(plan.approval.signature !== undefined && { signature: plan.approval.signature }),
            },
          ]
        : [],
    );
    if (content.length === 0) return;
    const message: ModelMessage = { role: 'assistant', content };
    this.messages.push(message);
    this.transcript = { ...this.transcript, tail: [...this.transcript.tail, message] };
  }

  /** A decision from the messages counts like any other: authenticated, and by someone with the right. */
  private applyMessageDecision(
    approvalId: string,
    response: NonNullable<Awaited<ReturnType<TurnActivities['planResumedCalls']>>['calls'][number]['response']>,
  ): void {
    const trust = this.settings?.trust;
    // An answer to a request Tollgate did not issue was noted by the activity; a person is asked again.
    if (!response.issuedHere) return;
    if (trust?.requireSigned && !response.signed) {
      this.events.note('approval-decided', this.steps, {
        approvalId,
        detail: `not applied: the decision in the messages ${response.signatureProblem ?? 'is not signed'}; a person is asked again`,
      });
      return;
    }
    const decision = {
      approvalId,
      approved: response.approved,
      ...(response.reason !== undefined && { reason: response.reason }),
      ...(response.approver !== undefined && { approver: response.approver }),
    };
    const check = this.approvals.book.check(decision, 'message');
    if (check.accepted) this.approvals.book.apply(decision, 'message', new Date());
    else this.events.note('approval-decided', this.steps, { approvalId, detail: `not applied: ${check.message}` });
  }

  /** Opens the approval a planned call needs, if any; returns its id. */
  private open(plan: PlannedToolCall): string | undefined {
    if (plan.kind === 'reject') return undefined;
    if (plan.kind === 'run') {
      if (!plan.autoApproved) return undefined;
      return this.approvals.open(plan.call, plan.autoApproved, 'auto-approve').approvalId;
    }
    const how = plan.kind === 'provider' && plan.autoApproved ? 'auto-approve' : 'ask';
    const pending = this.approvals.open(plan.call, plan.approval, how);
    if (how === 'ask' && plan.approval.notices && !this.approvals.book.decisionOf(pending.approvalId)) {
      const halt = this.settings?.approvalWait === 'halt';
      this.notices.announce(
        pending,
        plan.approval.notices,
        halt ? undefined : () => this.approvals.book.decisionOf(pending.approvalId),
      );
    }
    return pending.approvalId;
  }

  /**
   * Settles a model step's calls together. The call settled last, when it is a worker's tool and another model
   * step follows, is left to run in one activity with that step (from turn revision 3, model steps as activities).
   */
  private async settleStep(settling: Settling): Promise<Settled[]> {
    const { plans, opened, results } = settling;
    const joins =
      this.input.modelSteps !== 'local' && (this.settings?.revision ?? 1) >= turnRevisions.lastToolRunsWithNextStep;
    let open = results.filter((result) => result === unsettled).length;
    const isLast = () => joins && open === 1 && this.nextStepFollows();
    const all = Promise.all(
      plans.map(async (plan, index) => {
        const known = results[index];
        if (known !== unsettled) return known as Settled;
        try {
          const result = await this.settle(plan, opened[index], isLast, this.awaitsOutput(plan));
          results[index] = result;
          return result;
        } finally {
          open -= 1;
        }
      }),
    );
    return this.continuesAsNewWhenLarge() ? this.unlessContinuingAsNew(all, settling) : all;
  }

  /** True while the turn will call the model again after this step's tools. */
  private nextStepFollows(): boolean {
    return this.steps < (this.settings?.maxSteps ?? Infinity) && !this.approvals.superseded();
  }

  /**
   * Runs the call `settleStep` left, then the next model step, in one activity; returns that step (undefined when
   * the model failed there, so the loop calls it again in an activity of its own).
   */
  private async runLastToolWithNextStep(
    plans: PlannedToolCall[],
    opened: Array<string | undefined>,
    settled: Settled[],
    last: number,
  ): Promise<ModelStepOutput | undefined> {
    const { call } = plans[last] as PlannedToolCall;
    const results = settled as Array<ToolResultPart | undefined>;
    const follows = this.nextStepFollows();
    const runs = toolRunner(
      this.settings as TurnSettings,
      this.input.toolTimeouts?.startToClose !== undefined,
      follows,
    );
    const input = { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input };
    let step: ModelStepOutput | undefined;
    if (follows) {
      // The tool message as `addToolMessage` will write it, split around this call's result.
      const slot: ToolResultPart = {
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: 'text', value: '' },
      };
      const content = this.toolMessageContent(
        plans,
        opened,
        results.map((part, index) => (index === last ? slot : part)),
      );
      const at = content.indexOf(slot);
      const ran = await runs.runToolThenModelStep({
        call: input,
        toolMessage: { before: content.slice(0, at), after: content.slice(at + 1) },
        step: { ...this.stepInput(), step: this.steps + 1 },
      });
      results[last] = ran.result;
      step = ran.step;
      if (ran.modelFailure !== undefined) {
        this.events.note('model-step-retried', this.steps + 1, {
          detail: `failed after ${call.toolName} had run (${ran.modelFailure.slice(0, 300)}); called again on its own`,
        });
      }
    } else {
      results[last] = await runs.runTool(input);
    }
    this.toolFinished(results[last] as ToolResultPart);
    this.addToolMessage(plans, opened, results);
    return step;
  }

  /**
   * The result part of one call: its output, an error the model can read, or a denial; or, when `isLast` says so
   * as the worker's tool is about to run, `withNextStep`.
   */
  private async settle(
    plan: PlannedToolCall,
    approvalId: string | undefined,
    isLast?: undefined,
    awaitingOutput?: boolean,
  ): Promise<ToolResultPart | undefined>;
  private async settle(
    plan: PlannedToolCall,
    approvalId: string | undefined,
    isLast: () => boolean,
    awaitingOutput?: boolean,
  ): Promise<Settled>;
  /** `awaitingOutput`: an earlier run of the turn recorded the decision and started the client's call. */
  private async settle(
    plan: PlannedToolCall,
    approvalId: string | undefined,
    isLast: () => boolean = () => false,
    awaitingOutput = false,
  ): Promise<Settled> {
    const { call } = plan;
    if (plan.kind === 'provider') {
      // The provider runs it; the decision goes back to it with the next model call.
      await this.approvals.decision(plan.approval.approvalId);
      this.showDecided();
      return undefined;
    }
    const result = (output: ToolResultOutput): ToolResultPart => ({
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output,
    });
    if (plan.kind === 'reject') return result(errorText(plan.error));
    if (!awaitingOutput) {
      if (plan.kind === 'ask' && approvalId !== undefined) {
        const decision = await this.approvals.decision(approvalId);
        this.showDecided();
        if (decision.decision !== 'approved') return result(executionDenied(decision.reason));
      }
      this.events.note('tool-started', this.steps, { toolCallId: call.toolCallId, toolName: call.toolName });
    }
    let part: ToolResultPart;
    if (plan.executor === 'client') {
      if (!awaitingOutput) this.outputs.expect(call);
      await condition(() => this.outputs.outputOf(call.toolCallId) !== undefined);
      part = result(this.outputs.outputOf(call.toolCallId) as ToolResultOutput);
    } else if (isLast()) {
      return withNextStep;
    } else {
      part = await toolRunner(
        this.settings as TurnSettings,
        this.input.toolTimeouts?.startToClose !== undefined,
      ).runTool({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.input,
      });
    }
    this.toolFinished(part);
    return part;
  }

  private toolFinished(part: ToolResultPart): void {
    this.showPending();
    this.events.note('tool-finished', this.steps, {
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      detail: part.output.type,
    });
  }

  /** Halt mode: runs what needs no person, records it, and leaves the rest to the caller. */
  private async settleWhatNeedsNoPerson(
    plans: PlannedToolCall[],
    opened: Array<string | undefined>,
    withDecisions = true,
  ): Promise<void> {
    const waitsForCaller = (index: number) => {
      const approvalId = opened[index];
      const plan = plans[index] as PlannedToolCall;
      return (plan.kind === 'ask' || plan.kind === 'provider') && !this.approvals.book.decisionOf(approvalId as string);
    };
    const results = await Promise.all(
      plans.map((plan, index) => (waitsForCaller(index) ? undefined : this.settle(plan, opened[index]))),
    );
    this.addToolMessage(plans, opened, results, withDecisions);
    this.notices.handBack(this.approvals.book.pending(), new Date());
  }

  /** Appends the step's tool message: the decisions, then one result per call that has one. */
  private addToolMessage(
    plans: PlannedToolCall[],
    opened: Array<string | undefined>,
    results: Array<ToolResultPart | undefined>,
    withDecisions = true,
  ): void {
    const content = this.toolMessageContent(plans, opened, results, withDecisions);
    if (content.length === 0) return;
    const message: ModelMessage = { role: 'tool', content };
    this.messages.push(message);
    this.transcript = { ...this.transcript, tail: [...this.transcript.tail, message] };
  }

  private toolMessageContent(
    plans: PlannedToolCall[],
    opened: Array<string | undefined>,
    results: Array<ToolResultPart | undefined>,
    withDecisions = true,
  ): ToolContentPart[] {
    const ours = plans.flatMap((plan, index) =>
      plan.kind === 'ask' && withDecisions ? [opened[index] as string] : [],
    );
    const providers = plans.flatMap((plan) =>
      plan.kind === 'provider' && withDecisions ? [plan.approval.approvalId] : [],
    );
    return [
      ...this.approvals.responses(ours),
      ...this.approvals.responses(providers, true),
      ...results.filter((part): part is ToolResultPart => part !== undefined),
    ];
  }

  private adopt(settings: TurnSettings, notes: readonly string[]): void {
    if (!this.settings) {
      this.settings = settings;
      this.approvals.book.trustDecisionsFrom(settings.trust, {
        bindsSignatures: (settings.revision ?? 1) >= turnRevisions.boundDecisionSignatures,
      });
    }
    for (const detail of notes) this.events.note('policy-note', this.steps, { detail });
  }

  private halted(): boolean {
    return this.settings?.approvalWait === 'halt' && this.approvals.book.pending().length > 0;
  }

  private showPending(): void {
    this.visibility.publish(this.approvals.book.pending());
  }

  /**
   * A decided approval leaves the pending list at once, so nobody sees it waiting while its tool runs: from revision 4
   * in the Temporal UI's details and the conversation, the search attribute following at the turn's next workflow
   * task; in revision 2 and 3 in all three at once. Turns planned before revision 2 showed it only after the tool.
   * Each replays as it ran.
   */
  private showDecided(): void {
    const revision = this.settings?.revision ?? 1;
    if (revision >= turnRevisions.searchAttributeFollowsDecisions)
      this.visibility.publishDetails(this.approvals.book.pending());
    else if (revision >= turnRevisions.decisionsLeavePendingAtOnce) this.showPending();
  }

  private currentStatus(): AgentTurnStatus {
    if (this.status !== 'running') return this.status;
    if (this.approvals.book.pending().length > 0) return 'awaiting-approval';
    return this.outputs.awaiting().length > 0 ? 'awaiting-tool-output' : 'running';
  }

  /** Ends the turn: waits for handlers and notices in flight, then returns the result. */
  private async finish(status: AgentTurnResult['status']): Promise<AgentTurnResult> {
    this.status = status;
    this.showPending();
    this.events.note('turn-completed', this.steps, { detail: status });
    await this.notices.settled();
    await condition(allHandlersFinished);
    return this.result();
  }

  private stepInput(): ModelStepInput {
    return { workflowId: this.workflowId, step: this.steps, options: this.options(), transcript: this.transcript };
  }

  private options(): Omit<AgentTurnInput, 'messages' | 'transcript'> {
    const { messages: _messages, transcript: _transcript, ...options } = this.input;
    return options;
  }

  private result(): AgentTurnResult {
    return {
      status: this.status === 'running' || this.status === 'awaiting-tool-output' ? 'max-steps-reached' : this.status,
      messages: this.messages,
      text: this.text,
      steps: this.steps,
      audit: this.approvals.book.audit(),
      ignoredDecisions: this.approvals.book.ignored(),
      ...(this.approvals.book.ignoredNotKept() > 0 && {
        ignoredDecisionsNotKept: this.approvals.book.ignoredNotKept(),
      }),
      pending: this.approvals.book.pending(),
      transcript: this.transcript,
    };
  }

  /**
   * A turn that fails keeps what it did: its messages and transcript travel in the failure's
   * details, so a conversation keeps the tools that already ran.
   */
  private failure(error: unknown): unknown {
    if (isCancellation(error) || (error as Error | undefined)?.name === 'ContinueAsNew') return error;
    const cause = error instanceof ActivityFailure ? error.cause : error;
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    this.events.note('turn-completed', this.steps, { detail: `failed: ${(cause as Error)?.message ?? String(cause)}` });
    return ApplicationFailure.create({
      message: (cause as Error)?.message ?? String(cause),
      ...(type != null && { type }),
      nonRetryable: true,
      details: [{ messages: this.messages, transcript: this.transcript }],
      ...(error instanceof Error && { cause: error }),
    });
  }
}
