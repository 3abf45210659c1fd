import type { PendingToolApproval, ToolApprovalAuditEntry } from '../../../src/protocol';
import {
  approvalSummary,
  describeActivity,
  describeTurn,
  eligibleApprovers,
  toolSummary,
  type TurnPicture,
  type WaitingApproval,
} from '../../../src/workflows/visibility/describe-turn';

function waiting(overrides: Partial<WaitingApproval> = {}): WaitingApproval {
  return {
    approvalId: 'dHVybi0x.abc',
    toolCallId: 'call-1',
    toolName: 'writeFile',
    input: { path: 'notes.txt', content: 'hello' },
    requestedAt: '2026-11-25T14:31:07.123Z',
    step: 1,
    ...overrides,
  };
}

function picture(overrides: Partial<TurnPicture> = {}): TurnPicture {
  return {
    status: 'running',
    doing: { type: 'idle' },
    pending: [],
    awaitingOutput: [],
    decided: [],
    ignored: [],
    requester: 'ana',
    requireSigned: false,
    steps: 1,
    ...overrides,
  };
}

function decided(entry: Partial<ToolApprovalAuditEntry>): ToolApprovalAuditEntry {
  return {
    ...(waiting() as PendingToolApproval),
    decision: 'approved',
    approver: 'bob',
    decidedAt: '2026-11-25T14:35:00.000Z',
    via: 'update',
    ...entry,
  };
}

describe('describeTurn', () => {
  it('says per waiting call the tool, its arguments, who asked, who may decide, since and until when', () => {
    const details = describeTurn(
      picture({
        pending: [
          waiting({
            expiresAt: '2026-11-26T14:31:07.123Z',
            approvers: ['ana', 'bob', 'carol'],
            selfApprovalAllowed: false,
            quorum: 2,
            votes: [{ approver: 'bob', decidedAt: '2026-11-25T14:32:00.000Z' }],
          }),
        ],
      }),
    );
    expect(details).toContain('**Now:** waiting for approval of 1 call (`writeFile`). Asked by `ana`.');
    expect(details).toContain('**1. `writeFile`** `path: notes.txt, content: hello`\n\n- waiting since');
    expect(details).toContain('- waiting since 2026-11-25 14:31:07 UTC · until 2026-11-26 14:31:07 UTC, then denied');
    expect(details).toContain('- asked by `ana` · may decide: `bob`, `carol`');
    expect(details).toContain('quorum: 1 of 2 approvals (`bob`)');
    expect(details).toContain('approvalId `dHVybi0x.abc`');
  });

  it('names the way of deciding that works: the gateway or the CLI where decisions must be signed', () => {
    const signed = describeTurn(picture({ pending: [waiting()], requireSigned: true }));
    expect(signed).toContain('this worker counts signed decisions only: `npx tollgate approve <approvalId>`');
    expect(signed).toContain('`POST /v1/approvals/<approvalId>/decision`');
    expect(signed).toContain('signal or `respondToToolApprovals` update sent from this page is refused');

    const open = describeTurn(picture({ pending: [waiting()], requireSigned: false }));
    expect(open).toContain('`npx tollgate approve <approvalId>`');
    expect(open).toContain('the `toolApprovalResponse` signal `{"approvalId": "<approvalId>", "approved": true');
    expect(open).not.toContain('refused');
  });

  it('shows a decision the turn ignored, with its cause', () => {
    const details = describeTurn(
      picture({
        pending: [waiting()],
        ignored: [
          {
            received: { approvalId: 'dHVybi0x.abc', approved: true },
            cause: 'forbidden',
            message: 'This worker accepts only signed decisions.',
            receivedAt: '2026-11-25T14:33:00.000Z',
          },
        ],
      }),
    );
    expect(details).toContain('### Ignored decisions (1)');
    expect(details).toContain(
      '- 2026-11-25 14:33:00 UTC · **forbidden**: `This worker accepts only signed decisions.`',
    );
  });

  it('says what the turn does now: a model step, a running tool (with the next step), a client output', () => {
    expect(describeTurn(picture({ doing: { type: 'model-step', step: 3 } }))).toMatch(/^\*\*Now:\*\* model step 3\./);
    const tools = describeTurn(
      picture({ doing: { type: 'tools', calls: [{ toolName: 'bash', input: { command: 'ls' } }], thenModelStep: 2 } }),
    );
    expect(tools).toMatch(/^\*\*Now:\*\* running `bash` `ls`, then model step 2\./);
    expect(describeTurn(picture({ awaitingOutput: ['pickColor'] }))).toContain(
      "waiting for a client's output of `pickColor`",
    );
  });

  it("shows a finished turn's decisions: what, who, how and when", () => {
    const details = describeTurn(
      picture({
        status: 'completed',
        steps: 2,
        decided: [
          decided({}),
          decided({
            toolName: 'bash',
            input: { command: 'rm -rf /' },
            decision: 'denied',
            approver: 'carol',
            via: 'signal',
            reason: 'no',
          }),
        ],
      }),
    );
    expect(details).toMatch(/^\*\*Finished:\*\* completed after 2 model steps\. Asked by `ana`\./);
    expect(details).toContain('### Decisions (2)');
    expect(details).toContain('- `writeFile` `notes.txt`: **approved** by `bob` via update at 2026-11-25 14:35:00 UTC');
    expect(details).toContain(
      '- `bash` `rm -rf /`: **denied** by `carol` via signal at 2026-11-25 14:35:00 UTC — `no`',
    );
    expect(details).not.toContain('How to decide');
  });

  it('shows an approval with edited arguments: what was asked, what ran, and who edited', () => {
    const details = describeTurn(
      picture({
        status: 'completed',
        decided: [decided({ editedInput: { path: 'drafts/notes.txt', content: 'hello' }, editedBy: 'bob' })],
      }),
    );
    expect(details).toContain(
      '- `writeFile` `notes.txt`: **approved** by `bob` via update at 2026-11-25 14:35:00 UTC; ran with `drafts/notes.txt` as edited by `bob`',
    );
  });

  it('names the standing grant and who gave it for a call that ran without asking', () => {
    const details = describeTurn(
      picture({
        status: 'completed',
        decided: [
          decided({
            via: 'grant',
            approver: 'ana',
            grant: { grantId: 'grant-0123456789abcdef', grantedBy: 'ana' },
            reason: 'Approved by standing grant grant-0123456789abcdef from ana, use 2 of 10.',
          }),
        ],
      }),
    );
    expect(details).toContain(
      '- `writeFile` `notes.txt`: **approved** by standing grant `grant-0123456789abcdef` given by `ana` at 2026-11-25 14:35:00 UTC — `Approved by standing grant grant-0123456789abcdef from ana, use 2 of 10.`',
    );
  });

  it('shows what a model or sender wrote as code that cannot break out into markdown', () => {
    const details = describeTurn(
      picture({ pending: [waiting({ toolName: 'bash', input: { command: '`x` [click](http://evil)\n# title' } })] }),
    );
    expect(details).toContain('`command: "ˋxˋ [click](http://evil) # title"`');
    expect(details).not.toContain('\n# title');
  });
});

describe('timeline summaries', () => {
  it('name tools and approvals by tool and first argument, and model steps by number', () => {
    expect(toolSummary('bash', { command: 'ls' })).toBe('tool: bash ls');
    expect(approvalSummary('writeFile', { path: 'notes.txt', content: 'hi' })).toBe('approval: writeFile notes.txt');
    expect(approvalSummary('now', {})).toBe('approval: now');
    expect(describeActivity({ type: 'model-step', step: 3 })).toBe('model step 3');
  });
});

describe('eligibleApprovers', () => {
  it('lists named approvers, * where anyone may decide, and leaves out a requester who may not approve', () => {
    expect(
      eligibleApprovers(
        [
          waiting({ approvers: ['ana', 'bob'], selfApprovalAllowed: false }),
          waiting({ approvalId: 'b', approvers: ['bob', 'carol'] }),
          waiting({ approvalId: 'c' }),
        ],
        'ana',
      ),
    ).toEqual(['bob', 'carol', '*']);
    expect(eligibleApprovers([waiting({ approvers: ['ana'] })], 'ana')).toEqual(['ana']);
  });
});
