import { escapeHtml } from '../../notifications/email/email-text';
import type { ApprovalRuleSuggestion, SuggestionThresholds } from './suggest-approval-rules';

/**
 * The suggested rules as an HTML fragment for the inbox's statistics section: a heading, one item per suggestion with
 * its sentence, the grant it would be and its policy snippet (or why there is none), each JSON in a `<details>`. Pure:
 * every value is escaped; no script, style or link. Nothing on it applies a rule.
 *
 * @example
 * const html = renderSuggestions(suggestions, { minApprovals: 5, minPeople: 2 });
 */
export function renderSuggestions(
  suggestions: readonly ApprovalRuleSuggestion[],
  thresholds: SuggestionThresholds,
  options: { mostShown?: number } = {},
): string {
  const mostShown = options.mostShown ?? 10;
  const shown = suggestions.slice(0, mostShown);
  const intro =
    `<p class="hint">Tools and argument patterns approved every time they asked, at least ${thresholds.minApprovals} ` +
    `times by at least ${thresholds.minPeople} people. Nothing changes until someone creates the grant or deploys the policy.</p>`;
  if (shown.length === 0) {
    return `<h2 id="suggestions-heading">Suggested rules</h2>${intro}<p class="suggestions-empty">No rules to suggest in this period.</p>`;
  }
  const items = shown
    .map((suggestion) => {
      const tool = escapeHtml(suggestion.tool);
      const policy = suggestion.policy
        ? `<details><summary>Policy snippet for ${tool}</summary><pre>${escapeHtml(JSON.stringify(suggestion.policy, null, 2))}</pre>` +
          `<p class="hint">${escapeHtml(suggestion.policyNote)}</p></details>`
        : `<p class="hint">${escapeHtml(suggestion.policyNote)}</p>`;
      return (
        `<li class="suggestion" data-suggestion-id="${escapeHtml(suggestion.id)}">` +
        `<p>${escapeHtml(suggestion.summary)}</p>` +
        `<details><summary>Grant for ${tool}</summary><pre>${escapeHtml(JSON.stringify(suggestion.grant, null, 2))}</pre></details>` +
        policy +
        `</li>`
      );
    })
    .join('');
  const more = suggestions.length - shown.length;
  return (
    `<h2 id="suggestions-heading">Suggested rules</h2>${intro}` +
    `<ul class="suggestions" aria-labelledby="suggestions-heading">${items}</ul>` +
    (more > 0 ? `<p class="hint">${more} more in GET /v1/approvals/suggestions.</p>` : '')
  );
}
