import { SubAgentDecisionAnswers } from '../../../src/workflows/turn/sub-agent-answers';

const recorded = [{ approvalId: 'a.1', decision: 'approved', outcome: 'recorded' }];

describe('the answers a turn waits for from its sub-agents', () => {
  it('takes one answer for a request the turn waits on, and counts every other', () => {
    const answers = new SubAgentDecisionAnswers();
    answers.expect('r-1');

    expect(answers.receive({ requestId: 'r-2', recorded })).toBe('it answers no update this turn waits on');
    expect(answers.receive({ requestId: 'r-1', recorded: 'junk' })).toContain('recorded must be a list');
    expect(answers.answerOf('r-1')).toBeUndefined();
    expect(answers.receive({ requestId: 'r-1', recorded })).toBeUndefined();
    expect(answers.answerOf('r-1')).toEqual({ requestId: 'r-1', recorded });
    // A second answer changes nothing; once the turn stops waiting, a late one is refused too.
    expect(answers.receive({ requestId: 'r-1', refused: { message: 'no', type: 'ApproverNotAllowed' } })).toBe(
      'the update was answered already',
    );
    expect(answers.answerOf('r-1')).toEqual({ requestId: 'r-1', recorded });
    answers.forget('r-1');
    answers.receive({ requestId: 'r-1', recorded });
    expect(answers.answerOf('r-1')).toBeUndefined();
    expect(answers.refused).toBe(4);
  });
});
