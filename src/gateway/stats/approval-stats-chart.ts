import { escapeHtml as escapeXml } from '../../notifications/email/email-text';
import type { ApprovalStats } from './approval-stats';

/** Options of {@link renderApprovalStatsChart}. */
export interface ApprovalStatsChartOptions {
  /** Prefix of the SVG's element ids, unique on the page (default `approval-stats`). */
  idPrefix?: string;
  /** Most tools shown, the busiest first (default 12); the description says how many were left out. */
  maxTools?: number;
}

const outcomes = [
  { key: 'approved', label: 'approved', colour: '#1a7f37' },
  { key: 'denied', label: 'denied', colour: '#cf222e' },
  { key: 'expired', label: 'expired', colour: '#6e7781' },
] as const;

const width = 480;
const labelWidth = 150;
const barWidth = width - labelWidth - 90;
const rowHeight = 28;
const top = 34;

/**
 * A small inline SVG of the approvals per tool: one stacked bar each of approved, denied and expired, with the numbers
 * written beside it, a legend, and `<title>`/`<desc>` that say the same in words for screen readers. Pure: every value
 * is escaped, and the markup holds no script, style sheet or link.
 *
 * @example
 * const svg = renderApprovalStatsChart(stats); // '<svg xmlns="http://www.w3.org/2000/svg" role="img" …'
 */
export function renderApprovalStatsChart(stats: ApprovalStats, options: ApprovalStatsChartOptions = {}): string {
  const id = safeId(options.idPrefix ?? 'approval-stats');
  const limit = options.maxTools ?? 12;
  const tools = stats.tools.slice(0, limit);
  const left = stats.tools.length - tools.length;
  const largest = Math.max(1, ...tools.map((tool) => tool.approved + tool.denied + tool.expired));
  const height = top + Math.max(1, tools.length) * rowHeight + 10;
  const days = Math.max(1, Math.round((Date.parse(stats.until) - Date.parse(stats.since)) / 86_400_000));
  const title = `Approvals per tool, last ${days} ${days === 1 ? 'day' : 'days'}`;
  const sentences = tools.map(
    (tool) => `${tool.tool}: ${tool.approved} approved, ${tool.denied} denied, ${tool.expired} expired.`,
  );
  const description =
    tools.length === 0
      ? 'No approvals in this period.'
      : [
          ...sentences,
          ...(left > 0 ? [`${left} more ${left === 1 ? 'tool' : 'tools'} not shown.`] : []),
          ...(stats.truncated ? ['Only the newest turns were counted.'] : []),
        ].join(' ');

  const legend = outcomes
    .map(
      (outcome, index) =>
        `<rect x="${labelWidth + index * 90}" y="8" width="12" height="12" fill="${outcome.colour}"/>` +
        `<text x="${labelWidth + index * 90 + 16}" y="18">${outcome.label}</text>`,
    )
    .join('');
  const rows = tools
    .map((tool, index) => {
      const y = top + index * rowHeight;
      let x = labelWidth;
      const bars = outcomes
        .map((outcome) => {
          const count = tool[outcome.key];
          if (count === 0) return '';
          const size = Math.max(2, Math.round((count / largest) * barWidth));
          const bar =
            `<rect x="${x}" y="${y}" width="${size}" height="${rowHeight - 8}" fill="${outcome.colour}">` +
            `<title>${escapeXml(`${tool.tool}: ${count} ${outcome.label}`)}</title></rect>`;
          x += size;
          return bar;
        })
        .join('');
      const numbers = `${tool.approved} / ${tool.denied} / ${tool.expired}`;
      return (
        `<g>` +
        `<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escapeXml(shorten(tool.tool, 22))}</text>` +
        bars +
        `<text x="${x + 6}" y="${y + 15}">${numbers}</text>` +
        `</g>`
      );
    })
    .join('');
  const empty = tools.length === 0 ? `<text x="${labelWidth}" y="${top + 15}">No approvals in this period.</text>` : '';

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" aria-labelledby="${id}-title ${id}-desc" ` +
    `font-family="sans-serif" font-size="12" fill="#24292f">` +
    `<title id="${id}-title">${escapeXml(title)}</title>` +
    `<desc id="${id}-desc">${escapeXml(description)}</desc>` +
    legend +
    rows +
    empty +
    `</svg>`
  );
}

function shorten(text: string, limit: number): string {
  const characters = [...text];
  return characters.length <= limit ? text : `${characters.slice(0, limit - 1).join('')}…`;
}

// Ids end up inside attributes: only letters, digits, `-` and `_`.
function safeId(prefix: string): string {
  const cleaned = prefix.replace(/[^A-Za-z0-9_-]/g, '');
  return cleaned === '' ? 'approval-stats' : cleaned;
}
