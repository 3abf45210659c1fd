import type { ApprovalStats, ToolApprovalStats } from '../../../src/gateway/stats/approval-stats';
import { renderApprovalStatsChart } from '../../../src/gateway/stats/approval-stats-chart';

function tool(name: string, approved: number, denied: number, expired: number): ToolApprovalStats {
  return {
    tool: name,
    count: approved + denied + expired,
    approved,
    denied,
    expired,
    superseded: 0,
    pending: 0,
    timeToDecisionSeconds: { p50: null, p95: null },
  };
}

function statsOf(tools: ToolApprovalStats[], truncated = false): ApprovalStats {
  return {
    since: '2026-03-01T00:00:00.000Z',
    until: '2026-03-08T00:00:00.000Z',
    turnsRead: 3,
    truncated,
    unansweredTurns: 0,
    tools,
    approvers: [],
    refused: { total: 0, byCode: {} },
  };
}

describe('renderApprovalStatsChart', () => {
  it('draws one bar per tool and outcome, named by a title and a description that give the numbers in words', () => {
    const svg = renderApprovalStatsChart(statsOf([tool('deploy', 3, 1, 2), tool('deleteFile', 0, 1, 0)]));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" role="img" /);
    expect(svg).toContain('aria-labelledby="approval-stats-title approval-stats-desc"');
    expect(svg).toContain('<title id="approval-stats-title">Approvals per tool, last 7 days</title>');
    expect(svg).toContain(
      '<desc id="approval-stats-desc">deploy: 3 approved, 1 denied, 2 expired. deleteFile: 0 approved, 1 denied, 0 expired.</desc>',
    );
    // deploy has three bars, deleteFile one: no bar for an outcome that did not happen.
    expect(svg.match(/<rect [^>]*height="20"/g)).toHaveLength(4);
    expect(svg).toContain('<title>deploy: 3 approved</title>');
    expect(svg).toContain('<title>deleteFile: 1 denied</title>');
    // The legend names each colour in words.
    for (const word of ['approved', 'denied', 'expired']) expect(svg).toContain(`>${word}</text>`);
  });

  it('escapes tool names, so a name cannot add markup to the page', () => {
    const svg = renderApprovalStatsChart(statsOf([tool('<script>alert(1)</script>&"', 1, 0, 0)]));
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;');
  });

  it('says so when there is nothing to show, when tools are left out, and when the turns were capped', () => {
    expect(renderApprovalStatsChart(statsOf([]))).toContain(
      '<desc id="approval-stats-desc">No approvals in this period.</desc>',
    );
    const many = Array.from({ length: 5 }, (_, index) => tool(`tool${index}`, 1, 0, 0));
    const svg = renderApprovalStatsChart(statsOf(many, true), { maxTools: 3, idPrefix: 'inbox-chart' });
    expect(svg).toContain('2 more tools not shown.');
    expect(svg).toContain('Only the newest turns were counted.');
    expect(svg).toContain('aria-labelledby="inbox-chart-title inbox-chart-desc"');
    expect(svg).not.toContain('tool3');
  });
});
