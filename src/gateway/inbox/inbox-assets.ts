/** Where the inbox page loads its one stylesheet and its one script from (same origin: the CSP allows only that). */
export const inboxAssetPaths = { style: '/inbox/inbox.css', script: '/inbox/inbox.js' } as const;

/** The inbox's stylesheet. */
export const inboxStyle = `body{font-family:system-ui,sans-serif;color:#1f2328;margin:0;background:#f6f8fa}
main{max-width:860px;margin:0 auto;padding:1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin:0}
.head{display:flex;align-items:center;gap:.5em;margin:0 0 .4em}
.top{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5em 1em}.top h1{flex:1 1 auto}
.who{margin:0}.sign-out{margin:0}
.toolbar{display:flex;gap:1em;align-items:center;margin:1em 0}
#approvals{list-style:none;padding:0;margin:0}
.approval{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:1em;margin:0 0 1em}
.approval:target,.approval.highlight{outline:3px solid #0969da}
.approval.closed{opacity:.75;background:#f6f8fa}
.approval.fresh{border-color:#0969da}
dl{margin:.3em 0}dl div{display:flex;gap:.5em}dt{font-weight:600;min-width:8em}dd{margin:0;overflow-wrap:anywhere}
.facts{display:flex;flex-wrap:wrap;gap:.2em 1.5em}.facts div{display:block}.facts dt{min-width:0;font-size:.85em;color:#57606a}
.arguments{background:#f6f8fa;padding:.5em;border-radius:4px}
pre{background:#f6f8fa;padding:.5em;white-space:pre-wrap;overflow-wrap:anywhere;max-height:24em;overflow:auto}
textarea,input[type=email]{width:100%;box-sizing:border-box;font:inherit}
button{font:inherit;padding:.4em 1em;border-radius:6px;border:1px solid #d0d7de;background:#f6f8fa;cursor:pointer}
button:focus-visible,input:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #0969da;outline-offset:2px}
button.approve,#approve-selected{background:#1a7f37;color:#fff;border-color:#1a7f37}
button.deny{background:#cf222e;color:#fff;border-color:#cf222e}
button:disabled{opacity:.5;cursor:default}
.outcome:empty{display:none}.outcome{font-weight:600}.outcome.error{color:#cf222e}
.hint{color:#57606a}
.suggestions{list-style:none;padding:0;margin:.5em 0}
.suggestion{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.6em 1em;margin:0 0 .6em}
.suggestion p{margin:.3em 0}
button.allow{background:#fff;color:#1a7f37;border-color:#1a7f37}
dialog.allow-dialog{border:1px solid #d0d7de;border-radius:8px;max-width:34em;padding:1.2em 1.5em;color:#1f2328}
dialog.allow-dialog::backdrop{background:rgba(31,35,40,.5)}
dialog h3{margin:0 0 .4em;font-size:1.15em}
fieldset{border:1px solid #d0d7de;border-radius:6px;margin:.7em 0;padding:.4em .9em .6em}
legend{font-weight:600;padding:0 .3em}
fieldset label{display:block;padding:.25em 0}
fieldset:disabled label{color:#57606a}
.allow-error:empty{display:none}.allow-error{color:#cf222e;font-weight:600;border-left:4px solid #cf222e;padding:.3em .6em;background:#ffebe9}
table.grants{width:100%;border-collapse:collapse;background:#fff;margin:1em 0;border:1px solid #d0d7de}
table.grants caption{text-align:left;font-weight:600;font-size:1.15em;padding:.4em 0}
.grants th,.grants td{border-bottom:1px solid #d0d7de;padding:.5em .6em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.grants thead th{background:#f6f8fa;font-size:.9em}
.grants form{margin:0}.grants button{white-space:nowrap}
.grants th[scope=row] .hint{font-weight:400;font-size:.85em}
.notice{background:#dafbe1;border:1px solid #1a7f37;border-radius:6px;padding:.5em 1em}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

/**
 * The inbox's script: decides through `POST /inbox/approvals/:approvalId/decision` without reloading, approves
 * several at once, shows the edit form and the "Approve and allow…" dialog, keeps ages and expiries current, and polls `GET /inbox/approvals` to add
 * approvals that arrive (announced through the live region) and close those decided or expired elsewhere (their
 * buttons go). No inline handlers: the CSP allows this file only.
 */
export const inboxScript = `'use strict';
(function () {
  var list = document.getElementById('approvals');
  if (!list) return;
  var announcer = document.getElementById('announcer');
  var approveSelected = document.getElementById('approve-selected');
  var selectionCount = document.getElementById('selection-count');
  var listStatus = document.getElementById('list-status');
  var empty = document.getElementById('empty');
  var unanswered = document.getElementById('unanswered');
  var hashNote = document.getElementById('hash-note');
  var pollMs = 4000;

  function items() { return Array.prototype.slice.call(list.querySelectorAll('li.approval')); }
  function itemOf(approvalId) { return items().filter(function (li) { return li.dataset.approvalId === approvalId; })[0]; }
  function open(li) { return !li.classList.contains('closed'); }
  function say(text) { announcer.textContent = ''; window.setTimeout(function () { announcer.textContent = text; }, 50); }

  function span(ms) {
    var minutes = Math.floor(ms / 60000);
    if (minutes < 1) return 'less than a minute';
    if (minutes < 60) return minutes + ' min';
    var hours = Math.floor(minutes / 60);
    if (hours < 48) return hours + ' h ' + (minutes % 60) + ' min';
    return Math.floor(hours / 24) + ' days';
  }
  function refreshTimes() {
    var now = Date.now();
    items().forEach(function (li) {
      var age = li.querySelector('time.age');
      if (age) age.textContent = span(Math.max(0, now - Date.parse(age.getAttribute('datetime')))) + ' ago';
      var expiry = li.querySelector('time.expiry');
      if (expiry && open(li)) {
        var left = Date.parse(expiry.getAttribute('datetime')) - now;
        expiry.textContent = left <= 0 ? 'expired' : 'in ' + span(left);
        if (left <= 0) close(li, 'Expired: this call was denied.', false);
      }
    });
  }

  function updateSelection() {
    var count = items().filter(function (li) { var box = li.querySelector('input.select'); return box && box.checked && open(li); }).length;
    approveSelected.disabled = count === 0;
    approveSelected.textContent = count > 0 ? 'Approve selected (' + count + ')' : 'Approve selected';
    selectionCount.textContent = count > 0 ? count + ' selected' : '';
  }
  function updateEmpty() {
    empty.hidden = items().some(open);
  }

  // A closed approval keeps what it showed, loses every control, and says how it ended.
  function close(li, text, isError) {
    var hadFocus = li.contains(document.activeElement);
    li.classList.add('closed');
    Array.prototype.forEach.call(li.querySelectorAll('dialog'), function (dialog) { if (dialog.open) dialog.close(); });
    Array.prototype.forEach.call(li.querySelectorAll('form, input.select, dialog, button.allow'), function (element) { element.remove(); });
    var outcome = li.querySelector('.outcome');
    outcome.textContent = text;
    outcome.classList.toggle('error', Boolean(isError));
    if (hadFocus) outcome.focus();
    updateSelection();
    updateEmpty();
  }
  function showError(li, text) {
    var outcome = li.querySelector('.outcome');
    outcome.textContent = text;
    outcome.classList.add('error');
  }

  function post(approvalId, body) {
    return fetch('/inbox/approvals/' + encodeURIComponent(approvalId) + '/decision', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.text().then(function (text) {
        var parsed = {};
        try { parsed = JSON.parse(text); } catch (error) { parsed = { detail: text }; }
        return { ok: response.ok, status: response.status, body: parsed };
      });
    }, function () {
      return { ok: false, status: 0, body: { detail: 'The gateway could not be reached; try again.' } };
    });
  }
  // A preset as the REST decision's \`allow\`: "today" ends at midnight on this person's clock.
  function allowOf(preset, scope) {
    var allow = { scope: scope };
    if (preset === 'today') {
      var midnight = new Date();
      midnight.setHours(24, 0, 0, 0);
      allow.for = Math.max(60000, Math.round(midnight.getTime() - Date.now()));
    } else if (preset === 'conversation') {
      allow.for = '24h';
      allow.scope = 'conversation';
    } else if (preset === 'uses-10') {
      allow.uses = 10;
    } else {
      allow.for = '1h';
    }
    return allow;
  }
  // With \`dialog\` (Approve and allow…), a refusal is shown in the dialog, which stays open to choose again or cancel.
  function decide(li, body, dialog) {
    var tool = li.dataset.tool;
    Array.prototype.forEach.call(li.querySelectorAll('button'), function (button) { button.disabled = true; });
    li.dataset.deciding = '1';
    return post(li.dataset.approvalId, body).then(function (answer) {
      delete li.dataset.deciding;
      if (answer.ok) {
        var keepOpen = answer.body.decision === 'awaiting-quorum';
        if (keepOpen) {
          var outcome = li.querySelector('.outcome');
          outcome.textContent = answer.body.sentence;
          var approve = li.querySelector('button.approve');
          if (approve) approve.remove();
          var box = li.querySelector('input.select');
          if (box) { box.checked = false; box.disabled = true; }
          Array.prototype.forEach.call(li.querySelectorAll('button'), function (button) { button.disabled = false; });
        } else {
          close(li, answer.body.sentence, false);
        }
        say(answer.body.sentence);
        return true;
      }
      var detail = (answer.body && (answer.body.detail || answer.body.title)) || 'The decision failed.';
      var kind = String((answer.body && answer.body.type) || '').split(':').pop();
      if (answer.status === 404 || kind === 'expired' || kind === 'turn-closed') close(li, detail, true);
      else if (dialog && dialog.open) {
        var error = dialog.querySelector('.allow-error');
        error.textContent = 'Not allowed: ' + detail;
        Array.prototype.forEach.call(li.querySelectorAll('button'), function (button) { button.disabled = false; });
      } else {
        showError(li, detail);
        Array.prototype.forEach.call(li.querySelectorAll('button'), function (button) { button.disabled = false; });
      }
      say(tool + ': ' + detail);
      return false;
    });
  }

  list.addEventListener('submit', function (event) {
    event.preventDefault();
    var form = event.target;
    var li = form.closest('li.approval');
    if (!li || !open(li)) return;
    if (form.classList.contains('allow-form')) {
      var chosen = form.querySelector('input[name=preset]:checked');
      var whose = form.querySelector('input[name=scope]:checked');
      var allowBody = { approved: true, allow: allowOf(chosen ? chosen.value : '1h', whose ? whose.value : 'conversation') };
      var note = li.querySelector('form.decide textarea[name=reason]');
      if (note && note.value.trim()) allowBody.reason = note.value.trim();
      if (li.dataset.digest) allowBody.argumentsDigest = li.dataset.digest;
      form.querySelector('.allow-error').textContent = '';
      decide(li, allowBody, form.closest('dialog'));
      return;
    }
    if (form.classList.contains('edit-form')) {
      var text = form.querySelector('textarea[name=input]').value;
      var input;
      try { input = JSON.parse(text); } catch (error) { showError(li, 'The arguments are not valid JSON: ' + error.message); return; }
      decide(li, { approved: true, input: input });
      return;
    }
    var submitter = event.submitter;
    var approved = !(submitter && submitter.value === 'deny');
    var reason = form.querySelector('textarea[name=reason]').value.trim();
    var body = { approved: approved };
    if (reason) body.reason = reason;
    if (li.dataset.digest) body.argumentsDigest = li.dataset.digest;
    decide(li, body);
  });
  list.addEventListener('click', function (event) {
    var target = event.target;
    var li = target.closest && target.closest('li.approval');
    if (!li) return;
    if (target.classList.contains('allow')) {
      var dialog = li.querySelector('dialog.allow-dialog');
      dialog.querySelector('.allow-error').textContent = '';
      dialog.showModal();
    } else if (target.classList.contains('cancel-allow')) {
      target.closest('dialog').close();
      li.querySelector('button.allow').focus();
    } else if (target.classList.contains('edit')) {
      var editForm = li.querySelector('form.edit-form');
      editForm.hidden = false;
      editForm.querySelector('textarea').focus();
    } else if (target.classList.contains('cancel-edit')) {
      li.querySelector('form.edit-form').hidden = true;
      li.querySelector('button.edit').focus();
    }
  });
  list.addEventListener('change', function (event) {
    if (event.target.classList.contains('select')) updateSelection();
    // "This conversation" is a scope as well as a span: the scope choice is then fixed.
    if (event.target.name === 'preset') {
      var scopes = event.target.form.querySelector('fieldset.scopes');
      var inConversation = event.target.value === 'conversation';
      if (inConversation) scopes.querySelector('input[value=conversation]').checked = true;
      scopes.disabled = inConversation;
    }
  });
  approveSelected.addEventListener('click', function () {
    var chosen = items().filter(function (li) { var box = li.querySelector('input.select'); return box && box.checked && open(li); });
    approveSelected.disabled = true;
    var done = 0;
    var failed = 0;
    chosen.reduce(function (previous, li) {
      return previous.then(function () {
        var body = { approved: true };
        var reason = li.querySelector('textarea[name=reason]');
        if (reason && reason.value.trim()) body.reason = reason.value.trim();
        if (li.dataset.digest) body.argumentsDigest = li.dataset.digest;
        return decide(li, body).then(function (ok) { if (ok) done += 1; else failed += 1; });
      });
    }, Promise.resolve()).then(function () {
      say(done + ' approved' + (failed > 0 ? '; ' + failed + ' not: see each one' : '') + '.');
      updateSelection();
    });
  });

  // The statistics chart and the suggested rules (last 7 days), for those who may read them: drawn by the gateway, escaped there.
  var stats = document.getElementById('stats');
  if (stats && stats.getAttribute('data-src')) {
    fetch(stats.getAttribute('data-src'), { credentials: 'same-origin', headers: { accept: 'application/json' } }).then(function (response) {
      return response.ok ? response.json() : undefined;
    }).then(function (body) {
      if (!body || typeof body.svg !== 'string') return;
      stats.innerHTML = '<h2>Last 7 days</h2>' + body.svg + (body.truncated ? '<p class="hint">Counted from the newest turns only.</p>' : '') +
        (typeof body.suggestions === 'string' ? body.suggestions : '');
    }).catch(function () { /* the list matters more than the chart */ });
  }

  // New approvals come in from the listing; ones that left it were decided or expired elsewhere.
  function poll() {
    return fetch('/inbox/approvals', { credentials: 'same-origin', headers: { accept: 'application/json' } }).then(function (response) {
      if (response.status === 401) {
        listStatus.textContent = 'Your session has ended; reload the page to sign in again.';
        return;
      }
      if (!response.ok) { listStatus.textContent = 'Could not refresh the list; trying again.'; return; }
      return response.json().then(function (body) {
        listStatus.textContent = '';
        var listed = {};
        var added = [];
        body.approvals.forEach(function (approval) {
          listed[approval.approvalId] = true;
          var li = itemOf(approval.approvalId);
          if (li) {
            var quorum = li.querySelector('.quorum');
            if (quorum && approval.quorumText) quorum.textContent = approval.quorumText;
            return;
          }
          var template = document.createElement('template');
          template.innerHTML = approval.html.trim();
          var fresh = template.content.firstElementChild;
          fresh.classList.add('fresh');
          list.appendChild(fresh);
          added.push(approval.toolName + (approval.requester ? ' requested by ' + approval.requester : ''));
        });
        items().forEach(function (li) {
          if (open(li) && !listed[li.dataset.approvalId] && !li.dataset.deciding) {
            close(li, 'No longer waiting: decided elsewhere, expired, or its turn ended.', false);
            say(li.dataset.tool + ' is no longer waiting.');
          }
        });
        if (added.length > 0) say('New approval' + (added.length > 1 ? 's' : '') + ': ' + added.join('; ') + '.');
        unanswered.hidden = !body.unansweredText;
        unanswered.textContent = body.unansweredText || '';
        updateEmpty();
        refreshTimes();
      });
    }, function () { listStatus.textContent = 'The gateway could not be reached; trying again.'; });
  }
  function schedule() { window.setTimeout(function () { poll().then(schedule, schedule); }, pollMs); }

  // "Open in inbox" links end in #<approvalId>: bring that approval into view, or say why it is not here.
  function showLinked() {
    if (!location.hash || location.hash.length < 2) return;
    var wanted = decodeURIComponent(location.hash.slice(1));
    var li = itemOf(wanted);
    if (li) { li.classList.add('highlight'); li.scrollIntoView({ block: 'center' }); li.focus(); return; }
    hashNote.hidden = false;
    hashNote.textContent = 'The approval you followed a link to is not waiting for you: it was decided, expired, or is not yours to decide.';
  }

  updateSelection();
  refreshTimes();
  showLinked();
  window.setInterval(refreshTimes, 15000);
  schedule();
})();
`;
