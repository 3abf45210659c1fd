import { escapeHtml } from '../../notifications/email/email-text';
import type { ArgumentConstraint, StandingGrant } from '../../protocol';
import { inboxLayout, until, type InboxPage, type InboxViewer } from './inbox-pages';

/** Where the inbox lists standing grants, and where one is revoked. */
export const inboxGrantPaths = {
  list: '/inbox/grants',
  revoke: '/inbox/grants/:grantId/revoke',
} as const;

/** Whether a grant still covers calls, and if not, why: what the list shows in its state column. */
export function grantStateText(grant: StandingGrant, now: Date): { active: boolean; text: string } {
  if (grant.revokedAt !== undefined) {
    return { active: false, text: `revoked${grant.revokedBy !== undefined ? ` by ${grant.revokedBy}` : ''}` };
  }
  if (grant.expiresAt !== undefined && Date.parse(grant.expiresAt) <= now.getTime()) {
    return { active: false, text: 'expired' };
  }
  if (grant.uses !== undefined && grant.used >= grant.uses) return { active: false, text: 'used up' };
  return { active: true, text: 'in force' };
}

/** What a grant covers, in words: `deleteFile`, `every tool of MCP server files`, with its argument conditions. */
export function grantWhatText(grant: StandingGrant): string {
  const what =
    grant.mcpServer !== undefined ? `every tool of MCP server ${grant.mcpServer}` : (grant.tools ?? []).join(', ');
  const conditions = (grant.constraints ?? []).map(constraintText);
  return conditions.length > 0 ? `${what}, where ${conditions.join(' and ')}` : what;
}

/** Whose calls a grant covers, in words. */
export function grantScopeText(grant: StandingGrant): string {
  switch (grant.scope.type) {
    case 'everyone':
      return "everyone's calls";
    case 'requester':
      return `requests by ${grant.scope.requester}`;
    case 'conversation':
      return `conversation ${grant.scope.conversationId}`;
  }
}

/** How many uses a grant has had, and of how many. */
export function grantUsesText(grant: StandingGrant): string {
  return grant.uses !== undefined ? `${grant.used} of ${grant.uses}` : `${grant.used} (no limit)`;
}

/** The sentence the inbox adds to "approved by you" when the approver also allowed. */
export function allowedSentence(grant: StandingGrant, now: Date): string {
  const bounds = [
    ...(grant.expiresAt !== undefined ? [`until ${grant.expiresAt} (${until(grant.expiresAt, now)})`] : []),
    ...(grant.uses !== undefined ? [`for the next ${grant.uses} use${grant.uses === 1 ? '' : 's'}`] : []),
  ];
  return `Allowed without asking: ${grantWhatText(grant)} for ${grantScopeText(grant)}, ${bounds.join(', ')} (grant ${grant.grantId}; revoke it under Standing grants).`;
}

/**
 * The standing grants page: the grants in force with their use count, expiry and who gave them, each with a one-click
 * Revoke (a plain form POST, so it works without the script), then those that ended within the last day.
 */
export function grantsPage(
  viewer: InboxViewer,
  grants: readonly StandingGrant[],
  now: Date,
  options: { notice?: string } = {},
): InboxPage {
  const judged = grants.map((grant) => ({ grant, state: grantStateText(grant, now) }));
  const active = judged.filter(({ state }) => state.active);
  const ended = judged.filter(({ state }) => !state.active);
  const row = ({ grant, state }: (typeof judged)[number]) => {
    const what = escapeHtml(grantWhatText(grant));
    const expiry =
      grant.expiresAt !== undefined
        ? `<time datetime="${escapeHtml(grant.expiresAt)}" title="${escapeHtml(grant.expiresAt)}">${escapeHtml(until(grant.expiresAt, now))}</time>`
        : 'no time limit';
    const revoke = state.active
      ? `<form method="post" action="/inbox/grants/${encodeURIComponent(grant.grantId)}/revoke" class="revoke"><button type="submit" class="deny" aria-label="Revoke the grant for ${what} given by ${escapeHtml(grant.grantedBy)}">Revoke</button></form>`
      : escapeHtml(state.text);
    return `<tr id="${escapeHtml(grant.grantId)}" data-grant-id="${escapeHtml(grant.grantId)}">
<th scope="row"><code>${what}</code><br><span class="hint">${escapeHtml(grant.grantId)}</span></th>
<td>${escapeHtml(grantScopeText(grant))}</td>
<td class="uses">${escapeHtml(grantUsesText(grant))}</td>
<td class="expiry">${expiry}</td>
<td class="given">${escapeHtml(grant.grantedBy)}${grant.grantedBy === viewer.person ? ' (you)' : ''}<br><span class="hint"><time datetime="${escapeHtml(grant.grantedAt)}">${escapeHtml(grant.grantedAt.slice(0, 16).replace('T', ' '))} UTC</time></span></td>
<td>${revoke}</td>
</tr>`;
  };
  const table = (caption: string, rows: typeof judged, last: string) =>
    `<table class="grants"><caption>${escapeHtml(caption)}</caption>
<thead><tr><th scope="col">Covers</th><th scope="col">Whose calls</th><th scope="col">Uses</th><th scope="col">Expires</th><th scope="col">Given by</th><th scope="col">${last}</th></tr></thead>
<tbody>
${rows.map(row).join('\n')}
</tbody></table>`;
  return {
    status: 200,
    html: inboxLayout(
      'Standing grants',
      `<header class="top"><h1>Standing grants</h1>
<p class="who">Signed in as <strong>${escapeHtml(viewer.person)}</strong> · <a href="/inbox">Back to the approvals</a></p></header>
<p class="hint">A standing grant lets calls it covers run without asking anyone, until it expires, runs out of uses or is revoked. Revoking one makes Tollgate ask again from that moment, on every worker.</p>
${options.notice ? `<p class="notice" role="status">${escapeHtml(options.notice)}</p>\n` : ''}${
        active.length > 0
          ? table('In force', active, 'Revoke')
          : '<p id="no-grants">No standing grant is in force: every call that needs approval asks.</p>'
      }
${ended.length > 0 ? table('Ended in the last day', ended, 'Ended') : ''}`,
    ),
  };
}

function constraintText(constraint: ArgumentConstraint): string {
  switch (constraint.type) {
    case 'path-under':
      return `${constraint.argument} is under ${constraint.folder}`;
    case 'one-of':
      return `${constraint.argument} is one of ${constraint.values.join(', ')}`;
    case 'at-most':
      return `${constraint.argument} is at most ${constraint.max}`;
  }
}
