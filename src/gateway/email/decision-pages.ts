import { toolOnPath } from '../../protocol/tool-on-path';
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { escapeHtml, renderArgumentsText } from '../../notifications/email/email-text';
import type { DecisionTokenClaims } from '../../notifications/email/decision-token';
import type { PendingToolApproval } from '../../protocol';

/** A page the email routes answer with. */
export interface DecisionPage {
  status: number;
  html: string;
}

const style = `body{font-family:sans-serif;max-width:640px;margin:2em auto;padding:0 1em;color:#1f2328}
pre{background:#f4f4f4;padding:8px;white-space:pre-wrap;word-break:break-word}
th{text-align:left;padding-right:12px;vertical-align:top}
textarea{width:100%;box-sizing:border-box}
button{font-size:16px;padding:8px 20px;color:#fff;border:0;cursor:pointer}
.approve{background:#1a7f37}.deny{background:#cf222e}`;

// The one inline stylesheet is allowed by its hash; nothing else loads or runs (no scripts, images, frames).
const contentSecurityPolicy = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(style, 'utf8').digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * Sends a page with the headers every decision page carries: not cached anywhere (it is reached through a
 * credential), no Referer leaking the link to another site (`same-origin`: not `no-referrer`, with which a browser
 * posts the page's own form with `Origin: null`, and the origin check refuses it), a CSP that allows nothing but its own
 * style and forms posting back to the gateway, and no framing.
 */
export function sendPage(reply: FastifyReply, page: DecisionPage): FastifyReply {
  return reply
    .code(page.status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'same-origin')
    .header('content-security-policy', contentSecurityPolicy)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(page.html);
}

/** The page a link opens: what will be decided, on what, as whom, and the button that decides it. */
export function confirmationPage(claims: DecisionTokenClaims, approval: PendingToolApproval): DecisionPage {
  const verb = claims.decision === 'approve' ? 'Approve' : 'Deny';
  const facts: Array<[string, string]> = [
    ['Tool', toolOnPath(approval)],
    ['Turn', claims.workflowId],
    ['Approval', approval.approvalId],
    ['Requested at', approval.requestedAt],
    ['Expires', approval.expiresAt ?? 'never'],
    ['You decide as', claims.approver],
  ];
  return {
    status: 200,
    html: layout(
      `${verb} ${toolOnPath(approval)}?`,
      `<h1>${escapeHtml(verb)} <code>${escapeHtml(toolOnPath(approval))}</code>?</h1>
<table>${facts.map(([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>
<p><strong>Arguments</strong></p>
<pre>${escapeHtml(renderArgumentsText(approval.input))}</pre>
<form method="post">
<p><label for="reason">Reason (optional${claims.decision === 'deny' ? '; the model reads it' : ''})</label><br>
<textarea id="reason" name="reason" rows="3" maxlength="2000"></textarea></p>
<p><button type="submit" class="${claims.decision}">${escapeHtml(verb)}</button></p>
</form>
<p>Nothing is decided until you press the button. This link works once.</p>`,
    ),
  };
}

/** A page that says what happened, or why nothing did. */
export function messagePage(status: number, title: string, message: string): DecisionPage {
  return { status, html: layout(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`) };
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow">
<title>${escapeHtml(title)} · Tollgate</title>
<style>${style}</style></head>
<body>
${body}
</body></html>`;
}
