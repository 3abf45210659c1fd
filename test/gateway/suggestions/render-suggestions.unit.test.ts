import { renderSuggestions } from '../../../src/gateway/suggestions/render-suggestions';
import type { ApprovalRuleSuggestion } from '../../../src/gateway/suggestions/suggest-approval-rules';

const thresholds = { minApprovals: 5, minPeople: 2 };

function suggestion(tool: string, extra: Partial<ApprovalRuleSuggestion> = {}): ApprovalRuleSuggestion {
  return {
    id: tool,
    tool,
    summary: `${tool}: approved 5 of 5 times by 2 people (ana, bob).`,
    evidence: {
      approved: 5,
      people: [
        { approver: 'ana', approvals: 3 },
        { approver: 'bob', approvals: 2 },
      ],
      medianSecondsToDecide: 4,
      totalSecondsToDecide: 20,
      firstDecidedAt: '2026-03-02T10:00:00.000Z',
      lastDecidedAt: '2026-03-03T10:00:00.000Z',
      notApprovedOutside: 0,
    },
    policyNote: 'The policy file holds no rules on arguments: create the grant.',
    grant: { tools: [tool], scope: { type: 'everyone' }, for: '7d', reason: 'Suggested.' },
    ...extra,
  };
}

describe('renderSuggestions', () => {
  it('lists each suggestion with its sentence, its grant and its policy snippet, under a labelled heading', () => {
    const html = renderSuggestions(
      [
        suggestion('fs__read_file', {
          policy: { mcpServers: { fs: { tools: { read_file: { needsApproval: false } } } } },
          policyNote: 'If fs__read_file is the tool "read_file" of the MCP server "fs".',
        }),
        suggestion('deploy'),
      ],
      thresholds,
    );
    expect(html).toContain('<h2 id="suggestions-heading">Suggested rules</h2>');
    expect(html).toContain('<ul class="suggestions" aria-labelledby="suggestions-heading">');
    expect(html).toContain('at least 5 times by at least 2 people');
    expect(html.match(/<li class="suggestion"/g)).toHaveLength(2);
    expect(html).toContain('<summary>Policy snippet for fs__read_file</summary>');
    expect(html).toContain('&quot;needsApproval&quot;: false');
    expect(html).toContain('<summary>Grant for deploy</summary>');
    expect(html).toContain('<p class="hint">The policy file holds no rules on arguments: create the grant.</p>');
  });

  it('escapes every value: a tool name or argument cannot add markup', () => {
    const html = renderSuggestions(
      [suggestion('<img src=x onerror=alert(1)>', { summary: '<script>alert(1)</script>', id: '"><b>' })],
      thresholds,
    );
    expect(html).not.toMatch(/<img|<script|"><b>/);
    expect(html).toContain('&lt;script&gt;');
  });

  it('says when there is nothing to suggest, and how many more there are than it shows', () => {
    expect(renderSuggestions([], thresholds)).toContain('No rules to suggest in this period.');
    const many = Array.from({ length: 12 }, (_value, index) => suggestion(`tool${index}`));
    const html = renderSuggestions(many, thresholds);
    expect(html.match(/<li class="suggestion"/g)).toHaveLength(10);
    expect(html).toContain('2 more in GET /v1/approvals/suggestions.');
  });
});
