import { generateKeyPairSync } from 'node:crypto';
import { signDecision } from '../../../src/gateway/decisions/sign-decision';
import type { PendingToolApproval } from '../../../src/protocol';
import { ApprovalBook } from '../../../src/workflows/approvals/approval-book';
import { receiveDecisionSignal } from '../../../src/workflows/approvals/decision-messages';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keyId = 'gw';
const trust = { requireSigned: true, keys: { [keyId]: publicKey.export({ format: 'jwk' }).x as string } };
const requestedAt = new Date('2026-03-01T10:00:00.000Z');

function approval(approvalId: string, input: unknown = { path: 'a.txt' }): PendingToolApproval {
  return {
    approvalId,
    toolCallId: `${approvalId}-call`,
    toolName: 'writeFile',
    input,
    requestedAt: requestedAt.toISOString(),
    step: 1,
    inputDigest: `digest-of-${approvalId}`,
  };
}

/** A book for turn `workflowId` that trusts the gateway key, with one waiting approval per id. */
function book(workflowId: string, ids: string[], rights = { allowSelfApproval: true, quorum: 1 }): ApprovalBook {
  const result = new ApprovalBook(workflowId, () => new Date(requestedAt.getTime() + 60_000));
  result.trustDecisionsFrom(trust, { bindsSignatures: true });
  for (const id of ids) result.request(approval(id), rights);
  return result;
}

function signedFor(workflowId: string, pending: PendingToolApproval, approver: string, at = requestedAt) {
  return signDecision(
    { approvalId: pending.approvalId, approved: true, approver },
    { workflowId, toolName: pending.toolName, argumentsDigest: pending.inputDigest as string },
    { keyId, privateKey },
    at,
  );
}

describe('ApprovalBook', () => {
  it('applies a decision signed for this turn, this approval, its tool and arguments', () => {
    const turn = book('turn-a', ['a.1']);
    const decision = signedFor('turn-a', approval('a.1'), 'ana');
    expect(turn.check(decision, 'update')).toEqual({ accepted: true, repeat: false });
    expect(turn.apply(decision, 'update', new Date())).toMatchObject({ decision: 'approved', approver: 'ana' });
  });

  it("refuses another turn's decision, and one signed before the approval was requested", () => {
    const turn = book('turn-b', ['b.1']);
    const fromA = { ...signedFor('turn-a', approval('b.1'), 'ana') };
    expect(turn.check(fromA, 'update')).toMatchObject({
      accepted: false,
      cause: 'forbidden',
      message: expect.stringMatching(/made for another turn, approval, tool or arguments/),
    });
    const early = signedFor('turn-b', approval('b.1'), 'ana', new Date(requestedAt.getTime() - 6 * 60_000));
    expect(turn.check(early, 'update')).toMatchObject({
      accepted: false,
      message: expect.stringMatching(/before the approval/),
    });
    expect(turn.pending()).toHaveLength(1);
  });

  it('counts a signed vote once and records a replayed signal as such', () => {
    const turn = book('turn-q', ['q.1'], { allowSelfApproval: true, quorum: 2 });
    const vote = signedFor('turn-q', approval('q.1'), 'ana');
    expect(turn.apply(vote, 'update', new Date())).toMatchObject({ outcome: 'vote-recorded' });
    receiveDecisionSignal(turn, vote, new Date());
    expect(turn.ignored()).toEqual([expect.objectContaining({ cause: 'replayed' })]);
    expect(turn.pending()[0]?.votes).toHaveLength(1);
    receiveDecisionSignal(turn, signedFor('turn-q', approval('q.1'), 'bob'), new Date());
    expect(turn.decisionOf('q.1')).toMatchObject({ decision: 'approved', approver: 'bob' });
  });

  it('judges turns planned before revision 5 by the unbound signature they were decided with', () => {
    const turn = new ApprovalBook('turn-old');
    turn.trustDecisionsFrom(trust, { bindsSignatures: false });
    turn.request(approval('o.1'));
    expect(turn.check(signedFor('turn-old', approval('o.1'), 'ana'), 'update')).toMatchObject({
      accepted: false,
      message: expect.stringMatching(/does not verify/),
    });
  });

  describe('with edited input (turn revision 7)', () => {
    const rights = { allowSelfApproval: true, quorum: 1, editors: ['ana'] };
    function editing(workflowId: string, id: string): ApprovalBook {
      const result = new ApprovalBook(workflowId, () => new Date(requestedAt.getTime() + 60_000));
      result.trustDecisionsFrom(
        { requireSigned: false, keys: {} },
        { bindsSignatures: true, acceptsEditedInput: true },
      );
      result.request(approval(id), rights);
      return result;
    }
    const edit = (approvalId: string, approver: string, input: unknown) => ({
      approvalId,
      approved: true,
      approver,
      input: input as never,
    });

    it('shows who may edit, and records the model input, the edited input and the editor', () => {
      const turn = editing('turn-e', 'e.1');
      expect(turn.pending()[0]?.editors).toEqual(['ana']);
      expect(turn.check(edit('e.1', 'ana', { path: 'b.txt' }), 'update')).toEqual({ accepted: true, repeat: false });
      expect(turn.apply(edit('e.1', 'ana', { path: 'b.txt' }), 'update', new Date())).toMatchObject({
        decision: 'approved',
        input: { path: 'a.txt' },
        editedInput: { path: 'b.txt' },
        editedBy: 'ana',
        outcome: 'recorded',
      });
    });

    it('refuses an edit by someone not among the editors, even once the approval is decided', () => {
      const turn = editing('turn-e', 'e.2');
      expect(turn.check(edit('e.2', 'bob', { path: 'b.txt' }), 'update')).toMatchObject({
        accepted: false,
        cause: 'forbidden',
      });
      turn.apply({ approvalId: 'e.2', approved: true, approver: 'bob' }, 'update', new Date());
      expect(turn.check(edit('e.2', 'bob', { path: 'b.txt' }), 'update')).toMatchObject({ cause: 'forbidden' });
    });

    it('takes the same edit again as a repeat, and another input as a conflict: the first decision wins', () => {
      const turn = editing('turn-e', 'e.3');
      turn.apply(edit('e.3', 'ana', { path: 'b.txt' }), 'update', new Date());
      expect(turn.check(edit('e.3', 'ana', { path: 'b.txt' }), 'update')).toEqual({ accepted: true, repeat: true });
      expect(turn.check(edit('e.3', 'ana', { path: 'c.txt' }), 'update')).toMatchObject({
        accepted: false,
        cause: 'conflict',
      });
      expect(turn.check({ approvalId: 'e.3', approved: true, approver: 'ana' }, 'update')).toMatchObject({
        cause: 'conflict',
      });
    });

    it('still takes a plain decision that names no approver where the rules only name editors', () => {
      const turn = editing('turn-e', 'e.5');
      expect(turn.check({ approvalId: 'e.5', approved: true }, 'update')).toEqual({ accepted: true, repeat: false });
    });

    it('ignores edited input sent by signal: only the update checks it against the tool first', () => {
      const turn = editing('turn-e', 'e.4');
      receiveDecisionSignal(turn, edit('e.4', 'ana', { path: 'b.txt' }), new Date());
      expect(turn.pending()).toHaveLength(1);
      expect(turn.ignored()).toEqual([
        expect.objectContaining({
          cause: 'invalid',
          message: expect.stringMatching(/only through the respondToToolApprovals update/),
        }),
      ]);
    });

    it('reads input as an unknown field in turns before revision 7', () => {
      const turn = book('turn-old', ['o.1']);
      turn.trustDecisionsFrom({ requireSigned: false, keys: {} }, { bindsSignatures: true });
      receiveDecisionSignal(turn, edit('o.1', 'ana', { path: 'b.txt' }), new Date());
      expect(turn.ignored()).toEqual([
        expect.objectContaining({ message: expect.stringMatching(/unknown field "input"/) }),
      ]);
    });
  });
});
