import { toolOnPath } from '../../protocol/tool-on-path';
import type { FastifyReply } from 'fastify';
import type { PendingApprovalOfTurn } from '../../client';
import { escapeHtml, renderArgumentsText } from '../../notifications/email/email-text';
import { argumentSummary } from '../../protocol/argument-summary';
import { inboxAssetPaths } from './inbox-assets';

/** A page the inbox answers with. */
export interface InboxPage {
  status: number;
  html: string;
}

// The page's own script and stylesheet only; fetches go back to the gateway; nothing is framed, nothing inline runs.
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The headers every inbox page and answer carries: never cached, no Referer to other sites, the CSP above, no framing. */
export function inboxHeaders(reply: FastifyReply): FastifyReply {
  return (
    reply
      .header('cache-control', 'no-store')
      // Not `no-referrer`: with it a browser sends `Origin: null` on the page's own POSTs, which the origin check
      // refuses. `same-origin` keeps every URL (a sign-in link's included) from other sites all the same.
      .header('referrer-policy', 'same-origin')
      .header('content-security-policy', contentSecurityPolicy)
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
  );
}

/** Sends a page with {@link inboxHeaders}. */
export function sendInboxPage(reply: FastifyReply, page: InboxPage): FastifyReply {
  return inboxHeaders(reply).code(page.status).type('text/html; charset=utf-8').send(page.html);
}

/** A page that says what happened, or why nothing did, with a way back. */
export function inboxMessagePage(status: number, title: string, message: string): InboxPage {
  return {
    status,
    html: inboxLayout(
      title,
      `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>\n<p><a href="/inbox">Back to the inbox</a></p>`,
    ),
  };
}

/** The sign-in page: an address to send a one-time link to, or why there is none. */
export function signInPage(options: { emailSignIn: boolean; note?: string }): InboxPage {
  const form = options.emailSignIn
    ? `<form method="post" action="/inbox/sign-in" class="sign-in">
<p><label for="email">Your email address</label><br>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="320"></p>
<p><button type="submit">Send me a sign-in link</button></p>
</form>
<p class="hint">The link works once and for a short while. It signs you in on this browser.</p>`
    : '<p>Sign-in by email is not set up on this gateway; open the inbox through your company’s sign-in proxy.</p>';
  return {
    status: 200,
    html: inboxLayout(
      'Sign in',
      `<h1>Sign in to the approval inbox</h1>\n${options.note ? `<p role="alert">${escapeHtml(options.note)}</p>\n` : ''}${form}`,
    ),
  };
}

/** The answer to the address form: the same words whether or not the address is known. */
export function signInSentPage(): InboxPage {
  return inboxMessagePage(
    200,
    'Check your mail',
    'If that address belongs to someone who may decide approvals here, a sign-in link is on its way to it. The link works once, for 15 minutes.',
  );
}

/** What a sign-in link opens: a button, since mail scanners fetch links and a GET must not sign anyone in. */
export function confirmSignInPage(address: string): InboxPage {
  return {
    status: 200,
    html: inboxLayout(
      'Sign in',
      `<h1>Sign in to the approval inbox</h1>
<p>You are signing in as <strong>${escapeHtml(address)}</strong> on this browser.</p>
<form method="post"><p><button type="submit">Sign in</button></p></form>
<p class="hint">This link works once.</p>`,
    ),
  };
}

/** Who the inbox page is for. */
export interface InboxViewer {
  person: string;
  address: string;
  /** How they signed in: a one-time link (they may sign out) or the company's proxy. */
  via: 'link' | 'proxy';
}

/** One approval as the inbox shows it: the pending descriptor, who asked, and who may edit its arguments. */
export type InboxApproval = PendingApprovalOfTurn & { requester?: string; editors?: string[] };

/** The inbox: who is signed in, the list of approvals this person may decide, and the empty stats section. */
export function inboxPage(
  viewer: InboxViewer,
  approvals: readonly InboxApproval[],
  unansweredTurns: number,
  now: Date,
  /** Where the page's script fetches the statistics chart from, for a viewer who may read them. */
  options: { statsUrl?: string } = {},
): InboxPage {
  const signOut =
    viewer.via === 'link'
      ? '<form method="post" action="/inbox/sign-out" class="sign-out"><button type="submit">Sign out</button></form>'
      : '';
  return {
    status: 200,
    html: inboxLayout(
      'Approval inbox',
      `<header class="top"><h1>Approvals waiting for you</h1>
<p class="who">Signed in as <strong>${escapeHtml(viewer.person)}</strong> (${escapeHtml(viewer.address)}) · <a href="/inbox/grants">Standing grants</a></p>${signOut}</header>
<section id="stats" aria-label="Approval statistics"${options.statsUrl ? ` data-src="${escapeHtml(options.statsUrl)}"` : ' hidden'}></section>
<div class="toolbar">
<button type="button" id="approve-selected" disabled>Approve selected</button>
<span id="selection-count" aria-live="polite"></span>
<span id="list-status" class="hint"></span>
</div>
<p id="announcer" class="visually-hidden" aria-live="polite" aria-atomic="true"></p>
<p id="hash-note" hidden></p>
<p id="unanswered" class="hint"${unansweredTurns > 0 ? '' : ' hidden'}>${unansweredTurns > 0 ? unansweredText(unansweredTurns) : ''}</p>
<p id="empty"${approvals.length > 0 ? ' hidden' : ''}>Nothing waits for your decision.</p>
<ul id="approvals" data-person="${escapeHtml(viewer.person)}">
${approvals.map((approval) => approvalItemHtml(approval, viewer.person, now)).join('\n')}
</ul>
<script src="${inboxAssetPaths.script}" defer></script>`,
    ),
  };
}

/** The note for turns that did not answer the listing in time. */
export function unansweredText(count: number): string {
  return `${count} turn${count === 1 ? '' : 's'} did not answer in time (no worker?); their approvals may be missing.`;
}

/**
 * One approval as a list item: tool, readable arguments (the raw input one click away), who asked, age, time to
 * expiry, quorum progress, and the forms that decide it. Every control's accessible name names the tool.
 */
export function approvalItemHtml(approval: InboxApproval, person: string, now: Date): string {
  const id = escapeHtml(approval.approvalId);
  // Element ids for labels: derived from the approvalId, safe in an id whatever the approvalId holds.
  const key = `a${Buffer.from(approval.approvalId, 'utf8').toString('base64url').slice(0, 80)}`;
  const tool = escapeHtml(toolOnPath(approval));
  const quorum = approval.quorum ?? 1;
  const votes = approval.votes ?? [];
  const voted = votes.some((vote) => vote.approver === person);
  const mayEdit = Array.isArray(approval.editors) && approval.editors.includes(person);
  const facts = [
    `<div><dt>Requested by</dt><dd>${escapeHtml(approval.requester ?? 'not named')}${approval.requester === person ? ' (you)' : ''}</dd></div>`,
    `<div><dt>Asked</dt><dd><time class="age" datetime="${escapeHtml(approval.requestedAt)}">${escapeHtml(ago(approval.requestedAt, now))}</time></dd></div>`,
    `<div><dt>Expires</dt><dd>${
      approval.expiresAt
        ? `<time class="expiry" datetime="${escapeHtml(approval.expiresAt)}">${escapeHtml(until(approval.expiresAt, now))}</time>`
        : 'never'
    }</dd></div>`,
    `<div><dt>Approvals</dt><dd class="quorum">${escapeHtml(quorumText(votes.length, quorum, voted))}</dd></div>`,
  ];
  const summary = argumentSummary(approval.input)
    .map((line) => `<div><dt>${escapeHtml(line.name)}</dt><dd>${escapeHtml(line.value)}</dd></div>`)
    .join('');
  const raw = escapeHtml(renderArgumentsText(approval.input, 20_000));
  const editForm = mayEdit
    ? `<form class="edit-form" hidden>
<p><label for="${key}-input">Arguments for ${tool} (JSON)</label><br>
<textarea id="${key}-input" name="input" rows="8">${escapeHtml(JSON.stringify(approval.input ?? null, null, 2))}</textarea></p>
<p><button type="submit" class="approve">Approve ${tool} with these arguments</button>
<button type="button" class="cancel-edit">Cancel editing ${tool}</button></p>
</form>`
    : '';
  return `<li class="approval" id="${id}" data-approval-id="${id}" data-tool="${tool}"${
    approval.inputDigest ? ` data-digest="${escapeHtml(approval.inputDigest)}"` : ''
  }${approval.expiresAt ? ` data-expires-at="${escapeHtml(approval.expiresAt)}"` : ''} tabindex="-1">
<article aria-labelledby="${key}-title">
<div class="head"><input type="checkbox" class="select" id="${key}-select" aria-label="Select ${tool} (requested by ${escapeHtml(approval.requester ?? 'someone')}) for Approve selected"${voted ? ' disabled' : ''}>
<h2 id="${key}-title"><code>${tool}</code></h2></div>
<dl class="facts">${facts.join('')}</dl>
<dl class="arguments" aria-label="Arguments of ${tool}">${summary}</dl>
<details class="raw"><summary>Raw arguments of ${tool} (JSON)</summary><pre>${raw}</pre></details>
<form class="decide">
<p><label for="${key}-reason">Reason for ${tool} (optional; the model reads it when you deny)</label><br>
<textarea id="${key}-reason" name="reason" rows="2" maxlength="2000"></textarea></p>
<p class="buttons">${voted ? '' : `<button type="submit" class="approve" value="approve">Approve ${tool}</button> <button type="button" class="allow">Approve and allow ${tool}…</button> `}<button type="submit" class="deny" value="deny">Deny ${tool}</button>${
    mayEdit ? ` <button type="button" class="edit">Edit arguments of ${tool}…</button>` : ''
  }</p>
</form>
${editForm}
${voted ? '' : allowDialogHtml(key, tool, approval.requester)}
<p class="outcome" role="status" tabindex="-1"></p>
</article>
</li>`;
}

/**
 * "Approve and allow…": a dialog of presets (1 hour, the rest of today, this conversation, the next 10 uses) and whose
 * calls it covers. The page sends what is chosen as the REST decision's `allow`; whether the grant may be given is the
 * gateway's one rule (approver rights, self-grant, quorum, the operator's policy), and a refusal is shown here.
 */
function allowDialogHtml(key: string, tool: string, requester: string | undefined): string {
  const preset = (value: string, text: string, checked = false) =>
    `<label><input type="radio" name="preset" value="${value}"${checked ? ' checked' : ''}> ${text}</label>`;
  const scope = (value: string, text: string, checked = false) =>
    `<label><input type="radio" name="scope" value="${value}"${checked ? ' checked' : ''}> ${text}</label>`;
  return `<dialog class="allow-dialog" aria-labelledby="${key}-allow-title">
<form class="allow-form" method="dialog">
<h3 id="${key}-allow-title">Approve <code>${tool}</code> and allow calls like it</h3>
<p class="hint">This call runs now. Later calls of <code>${tool}</code> that the grant covers run without asking anyone, until it ends; revoke it at any time under <a href="/inbox/grants">Standing grants</a>.</p>
<fieldset class="presets"><legend>Allow for</legend>
${preset('1h', '1 hour', true)}
${preset('today', 'The rest of today')}
${preset('conversation', 'This conversation (up to 24 hours)')}
${preset('uses-10', 'The next 10 uses')}
</fieldset>
<fieldset class="scopes"><legend>Whose calls</legend>
${scope('conversation', 'This conversation’s', true)}
${requester !== undefined ? scope('requester', `Every request by ${escapeHtml(requester)}`) : ''}
${scope('everyone', 'Everyone’s')}
</fieldset>
<p class="allow-error" role="alert"></p>
<p class="buttons"><button type="submit" class="approve" value="allow">Approve and allow</button> <button type="button" class="cancel-allow">Cancel</button></p>
</form>
</dialog>`;
}

/** Quorum progress in words. */
export function quorumText(votes: number, quorum: number, voted: boolean): string {
  if (quorum <= 1) return 'one approval decides';
  return `${votes} of ${quorum} approvals${voted ? '; yours is counted' : ''}`;
}

/** "3 min ago", from an ISO time. */
export function ago(iso: string, now: Date): string {
  const ms = now.getTime() - Date.parse(iso);
  return Number.isFinite(ms) ? `${span(Math.max(0, ms))} ago` : iso;
}

/** "in 57 min", or "expired", from an ISO time. */
export function until(iso: string, now: Date): string {
  const ms = Date.parse(iso) - now.getTime();
  if (!Number.isFinite(ms)) return iso;
  return ms <= 0 ? 'expired' : `in ${span(ms)}`;
}

function span(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

/** The inbox's page frame: its stylesheet, a title, and `body` inside `<main>`. */
export function inboxLayout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow">
<title>${escapeHtml(title)} · Tollgate</title>
<link rel="stylesheet" href="${inboxAssetPaths.style}"></head>
<body>
<main>
${body}
</main>
</body></html>`;
}
