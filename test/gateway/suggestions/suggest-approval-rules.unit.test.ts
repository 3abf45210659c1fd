import { suggestApprovalRules } from '../../../src/gateway/suggestions/suggest-approval-rules';
import { isPathUnder } from '../../../src/protocol';
import type { ToolApprovalAuditEntry } from '../../../src/protocol';

const since = new Date('2026-03-01T00:00:00.000Z');
const until = new Date('2026-03-31T00:00:00.000Z');
let count = 0;

/** One approval a person decided `afterSeconds` after it was asked. */
function decided(
  toolName: string,
  input: unknown,
  decision: 'approved' | 'denied' | 'expired',
  approver: string | undefined,
  afterSeconds = 10,
  extra: Partial<ToolApprovalAuditEntry> = {},
): ToolApprovalAuditEntry {
  count += 1;
  const requestedAt = new Date(Date.parse('2026-03-02T10:00:00.000Z') + count * 60_000).toISOString();
  return {
    approvalId: `a${count}`,
    toolCallId: `c${count}`,
    toolName,
    input,
    requestedAt,
    step: 1,
    decision,
    ...(approver !== undefined && { approver }),
    decidedAt: new Date(Date.parse(requestedAt) + afterSeconds * 1000).toISOString(),
    via: decision === 'expired' ? 'timeout' : 'update',
    ...extra,
  };
}

function approvedBy(toolName: string, people: string[], input: unknown = {}, afterSeconds = 10) {
  return people.map((person) => decided(toolName, input, 'approved', person, afterSeconds));
}

describe('suggestApprovalRules', () => {
  it('suggests a tool approved every time it asked, by at least two people, with its evidence', () => {
    const audit = [
      ...approvedBy('readLog', ['ana', 'ana', 'bob'], {}, 10),
      ...approvedBy('readLog', ['bob', 'ana'], {}, 30),
      // Not asked of a person: they do not count for or against.
      decided('readLog', {}, 'denied', 'policy', 0, { via: 'policy' }),
    ];
    const [suggestion, ...others] = suggestApprovalRules({ since, until, turns: [{ audit }] });
    expect(others).toEqual([]);
    expect(suggestion).toMatchObject({
      id: 'readLog',
      tool: 'readLog',
      evidence: {
        approved: 5,
        people: [
          { approver: 'ana', approvals: 3 },
          { approver: 'bob', approvals: 2 },
        ],
        medianSecondsToDecide: 10,
        totalSecondsToDecide: 90,
        notApprovedOutside: 0,
      },
      grant: { tools: ['readLog'], scope: { type: 'everyone' }, for: '7d' },
    });
    expect(suggestion!.pattern).toBeUndefined();
    expect(suggestion!.grant.constraints).toBeUndefined();
    expect(suggestion!.summary).toBe('readLog: approved 5 of 5 times by 2 people (ana, bob); median 10 s to decide.');
    expect(suggestion!.grant.reason).toBe(`Suggested from the audit: ${suggestion!.summary}`);
    // A defined tool's asking is its definition's: the policy file cannot turn it off.
    expect(suggestion!.policy).toBeUndefined();
    expect(suggestion!.policyNote).toMatch(/needsApproval: false where readLog is defined/);
  });

  it('offers an MCP tool as a policy snippet in the operator policy format', () => {
    const [suggestion] = suggestApprovalRules({
      since,
      until,
      turns: [{ audit: approvedBy('fs__read_file', ['ana', 'bob', 'ana', 'bob', 'cy']) }],
    });
    expect(suggestion!.policy).toEqual({ mcpServers: { fs: { tools: { read_file: { needsApproval: false } } } } });
  });

  it('suggests nothing below the thresholds: too few approvals, one person, or a single denial', () => {
    const few = approvedBy('deploy', ['ana', 'bob', 'ana', 'bob']);
    const onePerson = approvedBy('restart', ['ana', 'ana', 'ana', 'ana', 'ana', 'ana']);
    const oneDenied = [
      ...approvedBy('drop', ['ana', 'bob', 'ana', 'bob', 'ana']),
      decided('drop', {}, 'denied', 'bob'),
    ];
    const oneExpired = [
      ...approvedBy('ship', ['ana', 'bob', 'ana', 'bob', 'ana']),
      decided('ship', {}, 'expired', undefined),
    ];
    expect(
      suggestApprovalRules({ since, until, turns: [{ audit: [...few, ...onePerson, ...oneDenied, ...oneExpired] }] }),
    ).toEqual([]);
    // Lower thresholds find the small one; one person never suffices.
    const lowered = suggestApprovalRules({
      since,
      until,
      turns: [{ audit: [...few, ...onePerson] }],
      thresholds: { minApprovals: 4, minPeople: 1 },
    });
    expect(lowered.map((suggestion) => suggestion.tool)).toEqual(['deploy']);
  });

  it('counts only decisions inside the window, and each approval once', () => {
    const old = decided('readLog', {}, 'denied', 'bob', 10, { decidedAt: '2026-02-01T00:00:00.000Z' });
    const audit = approvedBy('readLog', ['ana', 'bob', 'ana', 'bob', 'ana']);
    // The same audit read twice (a turn that continued as new lists it again).
    const [suggestion] = suggestApprovalRules({ since, until, turns: [{ audit: [old, ...audit] }, { audit }] });
    expect(suggestion!.evidence.approved).toBe(5);
  });

  it("counts each voter of a quorum's approval as a person", () => {
    const votes = (first: string, second: string) => [
      { approver: first, decidedAt: '2026-03-02T12:00:00.000Z' },
      { approver: second, decidedAt: '2026-03-02T12:01:00.000Z' },
    ];
    const audit = [1, 2, 3, 4, 5].map(() =>
      decided('release', {}, 'approved', 'bob', 20, { votes: votes('ana', 'bob'), quorum: 2 }),
    );
    const [suggestion] = suggestApprovalRules({ since, until, turns: [{ audit }] });
    expect(suggestion!.evidence.people).toEqual([
      { approver: 'ana', approvals: 5 },
      { approver: 'bob', approvals: 5 },
    ]);
  });

  it('finds the folder under which every call was approved when others were denied', () => {
    const audit = [
      ...approvedBy('writeFile', ['ana', 'bob', 'ana'], { path: 'docs/a.md' }),
      ...approvedBy('writeFile', ['bob', 'ana'], { path: 'docs/guide/b.md' }),
      decided('writeFile', { path: 'src/index.ts' }, 'denied', 'bob'),
      // Leads out of docs/: never covered by it, so its denial does not spoil docs/.
      decided('writeFile', { path: 'docs/../.env' }, 'denied', 'ana'),
    ];
    const suggestions = suggestApprovalRules({ since, until, turns: [{ audit }] });
    expect(suggestions.map((suggestion) => suggestion.id)).toEqual(['writeFile:path:path-under']);
    const [suggestion] = suggestions;
    expect(suggestion).toMatchObject({
      pattern: { type: 'path-under', argument: 'path', folder: 'docs' },
      grant: {
        tools: ['writeFile'],
        scope: { type: 'everyone' },
        for: '7d',
        constraints: [{ type: 'path-under', argument: 'path', folder: 'docs' }],
      },
      evidence: { approved: 5, notApprovedOutside: 2 },
    });
    expect(suggestion!.policy).toBeUndefined();
    expect(suggestion!.summary).toMatch(/^writeFile with path under docs\/: approved 5 of 5 times by 2 people/);
    expect(suggestion!.summary).toMatch(/Calls outside it were denied or expired 2 times\.$/);
  });

  it('finds a list of values, and a number at most so much', () => {
    const audit = [
      ...approvedBy('bash', ['ana', 'bob', 'ana'], { command: 'ls' }),
      ...approvedBy('bash', ['bob', 'ana'], { command: 'git status' }),
      decided('bash', { command: 'rm -rf build' }, 'denied', 'bob'),
      ...approvedBy('scale', ['ana', 'bob'], { replicas: 2 }),
      ...approvedBy('scale', ['ana', 'bob', 'ana'], { replicas: 4 }),
      decided('scale', { replicas: 3 }, 'approved', 'bob'),
      decided('scale', { replicas: 10 }, 'denied', 'ana'),
      decided('scale', { replicas: 5 }, 'expired', undefined),
    ];
    const suggestions = suggestApprovalRules({ since, until, turns: [{ audit }] });
    expect(suggestions.map((suggestion) => suggestion.pattern)).toEqual([
      { type: 'at-most', argument: 'replicas', max: 4 },
      { type: 'one-of', argument: 'command', values: ['git status', 'ls'] },
    ]);
    expect(suggestions[1]!.summary).toMatch(/^bash with command one of "git status", "ls": approved 5 of 5/);
    expect(suggestions[0]!.evidence.approved).toBe(6);
  });

  it('proposes no pattern whose calls include a denied one', () => {
    const audit = [
      ...approvedBy('writeFile', ['ana', 'bob', 'ana', 'bob', 'ana'], { path: 'docs/a.md' }),
      decided('writeFile', { path: 'docs/b.md' }, 'denied', 'bob'),
    ];
    expect(suggestApprovalRules({ since, until, turns: [{ audit }] })).toEqual([]);
  });
});

describe('isPathUnder', () => {
  it('holds a path inside the folder and nothing that steps out of it', () => {
    expect(isPathUnder('docs/a.md', 'docs')).toBe(true);
    expect(isPathUnder('./docs//guide/a.md', 'docs/')).toBe(true);
    expect(isPathUnder('/srv/docs/a.md', '/srv/docs')).toBe(true);
    expect(isPathUnder('docs-old/a.md', 'docs')).toBe(false);
    expect(isPathUnder('docs/../etc/passwd', 'docs')).toBe(false);
    expect(isPathUnder('docs\\..\\secret', 'docs')).toBe(false);
    // A `..` that would leave the root is under nothing.
    expect(isPathUnder('../docs/a.md', 'docs')).toBe(false);
  });
});
