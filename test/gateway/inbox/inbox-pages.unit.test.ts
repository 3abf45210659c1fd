import { approvalItemHtml, ago, until, type InboxApproval } from '../../../src/gateway/inbox/inbox-pages';

const now = new Date('2026-01-02T04:00:00.000Z');

function approval(extra: Partial<InboxApproval> = {}): InboxApproval {
  return {
    workflowId: 'turn-1',
    approvalId: 'turn-1:call-1',
    toolCallId: 'call-1',
    toolName: 'deleteFile',
    input: { path: '</textarea><script>alert(1)</script>' },
    requestedAt: '2026-01-02T03:57:00.000Z',
    expiresAt: '2026-01-02T05:00:00.000Z',
    step: 1,
    requester: 'carol',
    ...extra,
  };
}

describe('an approval in the inbox', () => {
  it('shows the Edit control and form only to a person the descriptor names as an editor', () => {
    const forEditor = approvalItemHtml(approval({ editors: ['ana'] }), 'ana', now);
    expect(forEditor).toContain('<button type="button" class="edit">Edit arguments of deleteFile…</button>');
    expect(forEditor).toContain('Approve deleteFile with these arguments');
    expect(forEditor).toMatch(/<label for="[^"]+-input">Arguments for deleteFile \(JSON\)<\/label>/);
    for (const html of [
      approvalItemHtml(approval({ editors: ['bob'] }), 'ana', now),
      approvalItemHtml(approval(), 'ana', now),
    ]) {
      expect(html).not.toContain('class="edit"');
      expect(html).not.toContain('edit-form');
    }
  });

  it('escapes what the model wrote everywhere, the edit form included', () => {
    const html = approvalItemHtml(approval({ editors: ['ana'] }), 'ana', now);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('</textarea><script>');
    expect(html).toContain('&lt;/textarea&gt;&lt;script&gt;');
  });

  it('names the tool in every control, labels the reason box, and shows age, expiry and quorum', () => {
    const html = approvalItemHtml(
      approval({ quorum: 2, votes: [{ approver: 'bob', decidedAt: now.toISOString() }] }),
      'ana',
      now,
    );
    expect(html).toContain('>Approve deleteFile</button>');
    expect(html).toContain('>Deny deleteFile</button>');
    expect(html).toContain('aria-label="Select deleteFile (requested by carol) for Approve selected"');
    expect(html).toMatch(
      /<label for="([^"]+)-reason">Reason for deleteFile[^<]*<\/label><br>\n<textarea id="\1-reason"/,
    );
    expect(html).toContain('3 min ago');
    expect(html).toContain('in 1 h 0 min');
    expect(html).toContain('1 of 2 approvals');
  });

  it('offers no second approval to someone whose vote is already counted', () => {
    const html = approvalItemHtml(
      approval({ quorum: 2, votes: [{ approver: 'ana', decidedAt: now.toISOString() }] }),
      'ana',
      now,
    );
    expect(html).not.toContain('>Approve deleteFile</button>');
    expect(html).toContain('>Deny deleteFile</button>');
    expect(html).toContain('1 of 2 approvals; yours is counted');
  });
});

describe('relative times', () => {
  it('reads as a person would say them', () => {
    expect(ago('2026-01-02T03:59:30.000Z', now)).toBe('less than a minute ago');
    expect(ago('2026-01-01T01:00:00.000Z', now)).toBe('27 h 0 min ago');
    expect(until('2026-01-02T03:00:00.000Z', now)).toBe('expired');
    expect(until('2026-01-09T04:00:00.000Z', now)).toBe('in 7 days');
  });
});
