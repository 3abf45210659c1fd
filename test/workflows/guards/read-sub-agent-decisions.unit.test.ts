import {
  ancestorsOf,
  readSubAgentDecisionsAnswer,
  readSubAgentDecisionsRequest,
} from '../../../src/workflows/guards/read-sub-agent-decisions';

const responses = [{ approvalId: 'a.1', approved: true, approver: 'bo' }];

describe('ancestorsOf', () => {
  it("reads a sub-agent's ancestors off its workflow id, one level per agent on its path", () => {
    expect(ancestorsOf('chat/turn-1/writer-1/reader-2', 2)).toEqual(['chat/turn-1/writer-1', 'chat/turn-1']);
    // A top turn's own "/" is not a level.
    expect(ancestorsOf('chat/turn-1', 0)).toEqual([]);
    expect(ancestorsOf('turn-1', 3)).toEqual([]);
  });
});

describe('readSubAgentDecisionsRequest', () => {
  const ancestors = ['turn-1/writer-1', 'turn-1'];

  it('takes a request from a turn above, leaving the decisions for the update reader', () => {
    expect(readSubAgentDecisionsRequest({ requestId: 'r-1', replyTo: 'turn-1', responses }, ancestors)).toEqual({
      requestId: 'r-1',
      replyTo: 'turn-1',
      responses,
    });
  });

  it('refuses one that would make the sub-agent answer another workflow, or that is not shaped as sent', () => {
    const refused: unknown[] = [
      { requestId: 'r-1', replyTo: 'someone-else', responses },
      { requestId: 'r-1', replyTo: 'turn-1/writer-1/reader-1', responses },
      { requestId: '', replyTo: 'turn-1', responses },
      { requestId: 'r'.repeat(101), replyTo: 'turn-1', responses },
      { requestId: 'r-1', replyTo: 'turn-1' },
      { requestId: 'r-1', replyTo: 'turn-1', responses, extra: 1 },
      JSON.parse('['.repeat(100) + ']'.repeat(100)),
      null,
      'junk',
    ];
    for (const payload of refused) expect(readSubAgentDecisionsRequest(payload, ancestors)).toHaveProperty('invalid');
  });
});

describe('readSubAgentDecisionsAnswer', () => {
  const recorded = [{ approvalId: 'a.1', decision: 'approved', outcome: 'recorded', approver: 'bo' }];

  it('takes what the sub-agent recorded, or its refusal with one of the update error types', () => {
    expect(readSubAgentDecisionsAnswer({ requestId: 'r-1', recorded })).toEqual({ requestId: 'r-1', recorded });
    expect(
      readSubAgentDecisionsAnswer({ requestId: 'r-1', refused: { message: 'no', type: 'ApproverNotAllowed' } }),
    ).toEqual({ requestId: 'r-1', refused: { message: 'no', type: 'ApproverNotAllowed' } });
    const long = readSubAgentDecisionsAnswer({
      requestId: 'r-1',
      refused: { message: 'x'.repeat(10_000), type: 'ConflictingDecision' },
    });
    expect((long as { refused: { message: string } }).refused.message).toHaveLength(4000);
  });

  it('refuses an answer of any other shape', () => {
    const refused: unknown[] = [
      { requestId: 'r-1', refused: { message: 'no', type: 'Anything' } },
      { requestId: 'r-1', refused: { message: 'no' } },
      { requestId: 'r-1', recorded: [] },
      { requestId: 'r-1', recorded: [{ approvalId: 'a.1' }] },
      { requestId: 'r-1', recorded, refused: { message: 'no', type: 'ApproverNotAllowed' } },
      { recorded },
      null,
    ];
    for (const payload of refused) expect(readSubAgentDecisionsAnswer(payload)).toHaveProperty('invalid');
  });
});
