import { ApplicationFailure, ChildWorkflowFailure, RetryState } from '@temporalio/common';
import type { AgentTurnResult, ConversationInput } from '../../../src/protocol';
import { formatApprovalId } from '../../../src/protocol/approval-id';
import {
  ConversationState,
  recentMessagesKept,
  type RunningTurn,
} from '../../../src/workflows/conversation/conversation-state';

const fresh = { continuesDuringTurns: true, continuedAsNew: false };

function state(input: ConversationInput = {}, run = fresh): ConversationState {
  return new ConversationState('chat-1', input, run);
}

function answer(messages: AgentTurnResult['messages'], transcript?: AgentTurnResult['transcript']): AgentTurnResult {
  return { messages, ...(transcript && { transcript }) } as AgentTurnResult;
}

const carried = (turnId: string): ConversationInput['runningTurn'] => ({
  turnId,
  before: { head: 'ref-1', tail: [] },
  userMessage: { role: 'user', content: 'still waiting' },
});

describe('ConversationState', () => {
  it('numbers turns in order: the running turn, then the queue', () => {
    const conversation = state({ turnCount: 2, queued: [{ content: 'a' }, { content: 'b' }] });
    expect(conversation.queued.map((message) => message.turnId)).toEqual(['chat-1/turn-3', 'chat-1/turn-4']);
    expect(conversation.receive({ content: 'c' })).toEqual({ turnId: 'chat-1/turn-5', queued: true });
  });

  it('starts a message at once when nothing runs or waits, and queues it behind a running turn', () => {
    const conversation = state();
    expect(conversation.receive({ content: 'first' })).toEqual({ turnId: 'chat-1/turn-1', queued: false });
    const running = conversation.startNext();
    expect(running.turnId).toBe('chat-1/turn-1');
    expect(conversation.view().currentTurnId).toBe('chat-1/turn-1');
    expect(conversation.receive({ content: 'second' })).toEqual({ turnId: 'chat-1/turn-2', queued: true });
  });

  it("gives a turn a reference to the transcript and the new message, with its sender and the conversation's settings; a chat follows it", () => {
    const conversation = state({
      transcript: { head: 'ref-9', tail: [{ role: 'user', content: 'old' }] },
      turn: { maxSteps: 3 },
    } as ConversationInput);
    conversation.receive({ content: 'new', requester: 'ada' } as never);
    const running = conversation.startNext();
    expect(conversation.turnInput(running)).toEqual({
      maxSteps: 3,
      stream: true,
      transcript: 'ref-9',
      messages: [
        { role: 'user', content: 'old' },
        { role: 'user', content: 'new' },
      ],
      requester: 'ada',
    });
    expect(conversation.turnCount).toBe(1);
  });

  it("leaves a conversation's turns unstreamed when its turn settings say so", () => {
    const conversation = state({ turn: { stream: false } } as ConversationInput);
    conversation.receive({ content: 'new' } as never);
    expect(conversation.turnInput(conversation.startNext()).stream).toBe(false);
  });

  it("takes a turn's answer into the transcript and keeps only the most recent messages for the query", () => {
    const conversation = state({
      recent: Array.from({ length: recentMessagesKept }, (_, i) => ({ role: 'user', content: `m${i}` })),
    });
    conversation.receive({ content: 'hi' });
    const running = conversation.startNext();
    conversation.answered(running, answer([{ role: 'assistant', content: 'hello' }]));
    conversation.endTurn();
    const view = conversation.view();
    expect(view.history).toHaveLength(recentMessagesKept);
    expect(view.history.at(-1)).toEqual({ role: 'assistant', content: 'hello' });
    expect(view.transcript).toEqual({
      tail: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    });
    expect(view.currentTurnId).toBeUndefined();
  });

  it('keeps what a failed turn did, and lets its sender return', () => {
    const conversation = state();
    conversation.receive({ content: 'run it' });
    const running = conversation.startNext();
    expect(conversation.hasStarted(running.turnId)).toBe(false);
    const cause = ApplicationFailure.create({
      message: 'tool broke',
      details: [{ messages: [{ role: 'assistant', content: 'ran ls' }], transcript: { head: 'ref-2', tail: [] } }],
    });
    conversation.failed(
      running,
      new ChildWorkflowFailure(
        'default',
        { workflowId: 'chat-1/turn-1', runId: 'run-1' },
        'agentTurn',
        RetryState.NON_RETRYABLE_FAILURE,
        cause,
      ),
    );
    expect(conversation.hasStarted(running.turnId)).toBe(true);
    expect(conversation.lastFailure).toEqual({ turnId: 'chat-1/turn-1', message: 'tool broke' });
    expect(conversation.transcript).toEqual({ head: 'ref-2', tail: [] });
    expect(conversation.recent.at(-1)).toEqual({ role: 'assistant', content: 'ran ls' });
  });

  it('supersedes the running turn only when asked to and only while it waits for approvals', () => {
    const waiting = (onMessageWhilePending: ConversationInput['onMessageWhilePending']) => {
      const conversation = state(onMessageWhilePending ? { onMessageWhilePending } : {});
      conversation.receive({ content: 'first' });
      const running = conversation.startNext();
      return { conversation, running };
    };
    const { conversation, running } = waiting('supersede');
    expect(conversation.turnToSupersede()).toBeUndefined();
    conversation.pendingView.receive({
      turnId: running.turnId,
      pending: [
        {
          approvalId: formatApprovalId(running.turnId, 'a1'),
          toolCallId: 'c1',
          toolName: 'rm',
          input: {},
          requestedAt: '2026-11-27T00:00:00.000Z',
          step: 1,
        },
      ],
    });
    expect(conversation.view().pending).toHaveLength(1);
    expect(conversation.turnToSupersede()).toBe('chat-1/turn-1');
    expect(waiting('wait').conversation.turnToSupersede()).toBeUndefined();
  });

  it('takes up a carried-over turn only in a run continued as new, with the patch, and only its own turn', () => {
    const continued = { continuesDuringTurns: true, continuedAsNew: true };
    const own = state({ runningTurn: carried('chat-1/turn-4'), turnCount: 4 }, continued).takeCarriedTurn();
    expect(own).toMatchObject({ turnId: 'chat-1/turn-4', carried: true });
    expect(state({ runningTurn: carried('chat-1/turn-4') }, fresh).takeCarriedTurn()).toBeUndefined();
    expect(
      state(
        { runningTurn: carried('chat-1/turn-4') },
        { continuesDuringTurns: false, continuedAsNew: true },
      ).takeCarriedTurn(),
    ).toBeUndefined();
    for (const other of ['chat-2/turn-1', 'chat-1/turn-0', 'chat-1/turn-1x', 'chat-1/turn-'])
      expect(state({ runningTurn: carried(other) }, continued).takeCarriedTurn()).toBeUndefined();
  });

  it('takes a carried-over turn up once', () => {
    const conversation = state(
      { runningTurn: carried('chat-1/turn-1'), turnCount: 1 },
      { continuesDuringTurns: true, continuedAsNew: true },
    );
    expect(conversation.takeCarriedTurn()).toBeDefined();
    expect(conversation.view().currentTurnId).toBe('chat-1/turn-1');
    expect(conversation.takeCarriedTurn()).toBeUndefined();
  });

  it('continues as new when Temporal suggests it or after continueAsNewAfterTurns turns of this run', () => {
    const conversation = state({ continueAsNewAfterTurns: 1 });
    expect(conversation.shouldContinueAsNew(false)).toBe(false);
    expect(conversation.shouldContinueAsNew(true)).toBe(true);
    conversation.receive({ content: 'one' });
    conversation.startNext();
    expect(conversation.shouldContinueAsNew(false)).toBe(true);
    expect(state().shouldContinueAsNew(false)).toBe(false);
  });

  it('hands the next run its settings, transcript, queue without turn ids, and the running turn', () => {
    const conversation = state({ onMessageWhilePending: 'supersede', continueAsNewAfterTurns: 5 });
    conversation.receive({ content: 'one' });
    const running: RunningTurn = conversation.startNext();
    conversation.receive({ content: 'two' });
    expect(conversation.continueAsNewInput()).toEqual({
      onMessageWhilePending: 'supersede',
      continueAsNewAfterTurns: 5,
      transcript: { tail: [] },
      recent: [{ role: 'user', content: 'one' }],
      queued: [{ content: 'two' }],
      turnCount: 1,
    });
    expect(conversation.continueAsNewInput(running).runningTurn).toMatchObject({
      turnId: 'chat-1/turn-1',
      before: { tail: [] },
      userMessage: { role: 'user', content: 'one' },
    });
  });
});
