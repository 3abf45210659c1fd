import type { IssuedApproval, PlannedToolCall, ToolCallPart } from '../../../src/protocol';
import { ClientToolOutputs } from '../../../src/workflows/approvals/client-tool-outputs';
import { TurnApprovals } from '../../../src/workflows/approvals/turn-approvals';
import { StepCalls } from '../../../src/workflows/turn/step-calls';
import { type Settling, type TurnState, unsettled, withNextStep } from '../../../src/workflows/turn/turn-state';
import { TurnEventLog } from '../../../src/workflows/visibility/turn-event-log';

// StepCalls reads and writes a turn's state only; its activities are not reached here (a worker's tool that is not the
// step's last, a sub-agent), so a turn of the real approvals, outputs and event log, with the rest recorded, will do.

function call(id: string, toolName = 'deleteFile'): ToolCallPart {
  return { type: 'tool-call', toolCallId: id, toolName, input: { path: `${id}.txt` } };
}

function issued(approvalId: string): IssuedApproval {
  return { approvalId, inputDigest: `digest-of-${approvalId}`, onExpire: 'deny' };
}

/** A turn at step 1 of revision 19, with model steps as activities and a next step to come. */
function turnWith(nextStepFollows = true) {
  const events = new TurnEventLog();
  const approvals = new TurnApprovals('turn-1', events, () => 1);
  const outputs = new ClientToolOutputs();
  const shown: string[] = [];
  const turn = {
    steps: 1,
    input: { messages: [] },
    events,
    approvals,
    outputs,
    revision: () => 19,
    awaitsOutput: () => false,
    nextStepFollows: () => nextStepFollows,
    showDecided: () => shown.push('decided'),
    showPending: () => shown.push('pending'),
    visibility: { refresh: () => shown.push('refresh') },
  };
  return { turn: turn as unknown as TurnState, events, approvals, outputs, shown };
}

/** Opens the approvals of the `ask` plans as the model step's workflow task does, and the settling of them all. */
function settlingOf(approvals: TurnApprovals, plans: PlannedToolCall[]): Settling {
  const opened = plans.map((plan) =>
    plan.kind === 'ask' ? approvals.open(plan.call, plan.approval, 'ask').approvalId : undefined,
  );
  return { kind: 'step', plans, opened, results: plans.map(() => unsettled) };
}

function decide(approvals: TurnApprovals, approvalId: string, approved: boolean): void {
  approvals.book.apply(
    { approvalId, approved, approver: 'ana', reason: approved ? undefined : 'not now' },
    'update',
    new Date(),
  );
}

describe('StepCalls', () => {
  it('waits without moving until a decision comes, then takes the call on at once', () => {
    const { turn, approvals, events, shown } = turnWith();
    const plan: PlannedToolCall = { kind: 'ask', call: call('a'), executor: 'worker', approval: issued('turn-1.a') };
    const calls = new StepCalls(turn, settlingOf(approvals, [plan]));

    expect(calls.advance()).toBe(true);
    expect(calls.moved()).toBe(false);
    expect(events.list().map((event) => event.type)).toEqual(['approval-requested']);

    decide(approvals, 'turn-1.a', true);
    expect(calls.moved()).toBe(true);
    // The step's last worker tool is left to run with the next model step.
    expect(calls.advance()).toBe(false);
    expect(calls.results()).toEqual([withNextStep]);
    expect(events.list().map((event) => [event.type, event.detail])).toEqual([
      ['approval-requested', undefined],
      ['approval-decided', 'approved'],
      ['tool-started', undefined],
    ]);
    expect(shown).toEqual(['decided']);
  });

  it('settles a denied call with its reason, and a malformed call with its error, without waiting', () => {
    const { turn, approvals } = turnWith();
    const asked: PlannedToolCall = { kind: 'ask', call: call('a'), executor: 'worker', approval: issued('turn-1.a') };
    const malformed: PlannedToolCall = { kind: 'reject', call: call('b'), error: 'path must be a string' };
    const settling = settlingOf(approvals, [asked, malformed]);
    decide(approvals, 'turn-1.a', false);
    const calls = new StepCalls(turn, settling);

    expect(calls.advance()).toBe(false);
    expect(calls.results()).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'a',
        toolName: 'deleteFile',
        output: { type: 'execution-denied', reason: 'not now' },
      },
      {
        type: 'tool-result',
        toolCallId: 'b',
        toolName: 'deleteFile',
        output: { type: 'error-text', value: 'path must be a string' },
      },
    ]);
  });

  it("waits for a client's output once its call is approved, and settles the call with it", () => {
    const { turn, approvals, outputs, shown } = turnWith();
    const plan: PlannedToolCall = {
      kind: 'ask',
      call: call('pick', 'pickColor'),
      executor: 'client',
      approval: issued('turn-1.pick'),
    };
    const calls = new StepCalls(turn, settlingOf(approvals, [plan]));
    decide(approvals, 'turn-1.pick', true);

    expect(calls.advance()).toBe(true);
    expect(outputs.isAwaiting('pick')).toBe(true);
    expect(calls.moved()).toBe(false);

    const output = { type: 'json' as const, value: { color: '#008080' } };
    outputs.record({ toolCallId: 'pick', output: { color: '#008080' } }, output);
    expect(calls.moved()).toBe(true);
    expect(calls.advance()).toBe(false);
    expect(calls.results()).toEqual([{ type: 'tool-result', toolCallId: 'pick', toolName: 'pickColor', output }]);
    expect(shown).toEqual(['decided', 'refresh', 'pending']);
  });

  it("takes up a provider's call once decided, with no result of its own", () => {
    const { turn, approvals } = turnWith(false);
    const approval = issued('turn-1.issue');
    const plan: PlannedToolCall = {
      kind: 'provider',
      call: call('issue', 'create_issue'),
      approval,
      autoApproved: false,
    };
    approvals.open(plan.call, approval, 'ask');
    const calls = new StepCalls(turn, { kind: 'step', plans: [plan], opened: ['turn-1.issue'], results: [unsettled] });

    expect(calls.advance()).toBe(true);
    decide(approvals, 'turn-1.issue', true);
    expect(calls.moved()).toBe(true);
    expect(calls.advance()).toBe(false);
    expect(calls.results()).toEqual([undefined]);
  });
});
