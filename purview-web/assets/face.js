// The person's face of a Purview app: draws the scene the server sends
// (every window, its blocks, its actions as forms), runs the person's calls
// and answers, and redraws on every change. No framework, no build step.
(function () {
  'use strict';
  var meta = function (name) {
    var m = document.querySelector('meta[name="' + name + '"]');
    return m ? m.getAttribute('content') : '';
  };
  // How the page talks to the app: the web face's own routes, or a host's
  // bridge (the MCP Apps card sets window.PurviewTransport first).
  var transport = window.PurviewTransport || (function () {
    var prefix = meta('purview-prefix');
    // The person's credential lives in this origin's storage and goes out
    // only in a header this script sets: never a cookie, which the browser
    // would also hand to every other port of this host.
    var stored = 'purview-session:' + prefix;
    var session = null;
    try { session = localStorage.getItem(stored); } catch (e) { session = null; }
    var key = /[#&]key=([0-9a-f]+)/.exec(location.hash);
    // The one-time key came in the link's fragment, which no server saw;
    // it leaves the address bar and the history now.
    if (key) history.replaceState(null, '', location.pathname + location.search);
    var ready = !key ? Promise.resolve() : send('open', { key: key[1] }).then(function (answer) {
      if (!answer.session) return;
      session = answer.session;
      try { localStorage.setItem(stored, session); } catch (e) { /* kept for this page only */ }
    });
    function send(kind, body) {
      return fetch(prefix + '/' + kind, {
        method: 'POST',
        credentials: 'omit',
        headers: { 'content-type': 'application/json', 'x-purview-session': session || '' },
        body: JSON.stringify(body)
      }).then(function (r) {
        return r.json().catch(function () { return { error: { message: 'The app answered ' + r.status + '.' } }; });
      });
    }
    // The live events: server-sent events read through fetch, since an
    // EventSource cannot carry the credential's header.
    function events(onScene, onStatus) {
      var retry = function () { onStatus('Reconnecting…'); setTimeout(function () { events(onScene, onStatus); }, 2000); };
      fetch(prefix + '/events', { credentials: 'omit', cache: 'no-store', headers: { 'x-purview-session': session || '' } })
        .then(function (r) {
          if (r.status === 401 || r.status === 403) {
            try { localStorage.removeItem(stored); } catch (e) { /* nothing kept */ }
            return r.text().then(function (why) { onScene({ error: why }); onStatus('Closed'); });
          }
          if (!r.ok || !r.body) return retry();
          onStatus('Live');
          var reader = r.body.getReader();
          var decoder = new TextDecoder();
          var buffer = '';
          var pump = function () {
            return reader.read().then(function (chunk) {
              if (chunk.done) return retry();
              buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, '\n');
              for (var end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
                var name = '', data = [];
                buffer.slice(0, end).split('\n').forEach(function (line) {
                  if (line.slice(0, 6) === 'event:') name = line.slice(6).trim();
                  else if (line.slice(0, 5) === 'data:') data.push(line.slice(5).replace(/^ /, ''));
                });
                buffer = buffer.slice(end + 2);
                if (name === 'scene') onScene(JSON.parse(data.join('\n')));
              }
              return pump();
            });
          };
          return pump();
        })
        .catch(retry);
    }
    return {
      canAnswer: true,
      post: function (kind, body) { return ready.then(function () { return send(kind, body); }); },
      listen: function (onScene, onStatus) { ready.then(function () { events(onScene, onStatus); }); }
    };
  })();

  var root = document.getElementById('purview');
  var status = document.getElementById('pv-status');
  var scene = null;
  var forms = {};      // scope|action -> {values}
  var failures = {};   // scope -> {action, error}
  var confirming = null; // {scope, window, action, values}
  var pages = {};      // window|block -> {offset, rows}
  var busy = 0;

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) return;
        if (k === 'text') node.textContent = v;
        else if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), v);
        else node.setAttribute(k, v === true ? '' : v);
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) c.forEach(function (x) { if (x) node.appendChild(x); });
      else node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return node;
  }
  function slug(s) { return String(s).replace(/[^A-Za-z0-9_-]/g, '_'); }
  function scopeKey(win) { return win ? win.id : ''; }
  function cell(v) {
    if (v === null || v === undefined) return '';
    return typeof v === 'string' ? v : JSON.stringify(v);
  }

  // ---- calls -------------------------------------------------------------
  function call(win, action, values, confirmed, then) {
    var scope = scopeKey(win);
    busy++;
    transport.post('call', { window: win ? win.id : null, action: action.name, values: values, confirmed: !!confirmed })
      .then(function (answer) {
        if (answer && answer.error) {
          failures[scope] = { action: action.name, error: answer.error };
        } else {
          delete failures[scope];
          delete forms[scope + '|' + action.name];
          if (then) then(answer || {});
        }
      })
      .catch(function () { failures[scope] = { action: action.name, error: { message: 'The app could not be reached.' } }; })
      .then(function () { busy--; render(); });
  }
  function start(win, action, values) {
    if (action.destructive) {
      confirming = { scope: scopeKey(win), win: win, action: action, values: values };
      render();
      var no = document.getElementById('pv-confirm-no');
      if (no) no.focus();
      return;
    }
    call(win, action, values, false);
  }
  function answer(id, approve) {
    transport.post('answer', { id: id, approve: approve }).then(render, render);
  }

  // ---- blocks ------------------------------------------------------------
  function fieldsBlock(b) {
    return el('dl', { 'class': 'pv-fields' }, b.items.map(function (item) {
      var shown = item.sensitive ? (item.value ? '••••••' : '') : cell(item.value);
      return el('div', null, el('dt', { text: item.label }), el('dd', { text: shown }));
    }));
  }
  function tableBlock(win, b, key) {
    var page = pages[win.id + '|' + key];
    // A page of rows loaded before the window changed may show rows that moved.
    if (page && page.version !== win.version) { delete pages[win.id + '|' + key]; page = null; }
    var offset = page ? page.offset : (b.offset || 0);
    var rows = page ? page.rows : b.rows;
    var pickers = pickersOf(win, key);
    var table = el('table', { 'class': 'pv-table' },
      el('thead', null, el('tr', null,
        b.columns.map(function (c) { return el('th', { scope: 'col', text: c }); }),
        pickers.map(function (p) { return el('th', { scope: 'col', text: p.label + ' for ' + p.action.title }); }))),
      el('tbody', null, rows.map(function (r) {
        return el('tr', null,
          r.map(function (v) { return el('td', { text: cell(v) }); }),
          pickers.map(function (p) { return el('td', null, pickButton(p, r)); }));
      })));
    var parts = [table];
    if (typeof b.total === 'number') {
      var to = offset + rows.length;
      parts.push(el('p', { 'class': 'pv-weak', text: 'Rows ' + (rows.length ? offset + 1 : offset) + '–' + to + ' of ' + b.total }));
      var loaderName = win.paged && win.paged[key];
      var loader = loaderName && win.actions.filter(function (a) { return a.name === loaderName; })[0];
      if (loader && win.operable) {
        var limit = Math.max(b.rows.length, 1);
        var load = function (at) {
          call(win, loader, { offset: String(at), limit: String(limit) }, false, function (ans) {
            var got = ans.value && ans.value.rows;
            if (Array.isArray(got)) {
              pages[win.id + '|' + key] = { offset: at, version: win.version, rows: got.map(function (r) {
                return Array.isArray(r) ? r : b.columns.map(function (c) { return r && typeof r === 'object' ? r[c] : r; });
              }) };
            }
          });
        };
        parts.push(el('div', { 'class': 'pv-bar' },
          el('button', { type: 'button', disabled: offset <= 0, onclick: function () { load(Math.max(offset - limit, 0)); } }, 'Previous rows'),
          el('button', { type: 'button', disabled: to >= b.total, onclick: function () { load(to); } }, 'Next rows')));
      }
    }
    return el('div', { 'class': 'pv-tablewrap' }, parts);
  }
  // Arguments an open form takes from a column of this table
  // (`#[arg(from = table.column)]`): the person picks a row for them.
  function pickersOf(win, key) {
    var pickers = [];
    win.actions.forEach(function (a) {
      var state = forms[win.id + '|' + a.name];
      if (!state || !win.operable) return;
      (a.sources || []).forEach(function (s) {
        if (s.table !== key) return;
        var param = a.params.filter(function (p) { return p.name === s.argument; })[0];
        pickers.push({ action: a, state: state, source: s, label: param ? param.label : s.argument });
      });
    });
    return pickers;
  }
  function pickButton(p, row) {
    var value = cell(row[p.source.column]);
    var chosen = String(p.state.values[p.source.argument] || '') === value;
    return el('button', { type: 'button', 'aria-pressed': String(chosen),
      'aria-label': 'Choose ' + value + ' as ' + p.label + ' for ' + p.action.title,
      onclick: function () { p.state.values[p.source.argument] = value; render(); } },
      chosen ? 'Chosen' : 'Choose');
  }
  function block(win, b, index) {
    var key = b.id || ('#' + index);
    switch (b.type) {
      case 'text': return el('p', { text: b.text });
      case 'fields': return fieldsBlock(b);
      case 'table': return tableBlock(win, b, key);
      case 'list': {
        var first = b.offset || 0;
        var list = el(b.ordered ? 'ol' : 'ul', b.ordered ? { start: first + 1 } : null,
          b.items.map(function (i) { return el('li', { text: cell(i) }); }));
        var more = (typeof b.total === 'number' && b.total > b.items.length) ?
          el('p', { 'class': 'pv-weak', text: b.items.length + ' of ' + b.total + ' items shown' }) : null;
        return el('div', null, list, more);
      }
      case 'notice': {
        var word = { info: 'Info', warn: 'Warning', error: 'Error', success: 'Done' }[b.severity] || 'Note';
        return el('div', { 'class': 'pv-notice pv-' + b.severity, role: b.severity === 'error' ? 'alert' : 'status' }, word + ': ' + b.text);
      }
      case 'media': {
        var alt = b.alt || ('(' + b.mimeType + ' without a description)');
        var img = (/^image\//.test(b.mimeType) && /^data:image\//.test(b.url)) ? el('img', { src: b.url, alt: b.alt || '' }) : null;
        return el('figure', null, img, el('figcaption', { text: alt }));
      }
      case 'custom':
        return el('details', null, el('summary', null, 'Details'), el('pre', { text: JSON.stringify(b.payload, null, 2) }));
      default:
        return el('pre', { text: JSON.stringify(b) });
    }
  }

  // ---- forms and actions -------------------------------------------------
  function fieldError(failure, action, name) {
    if (!failure || failure.action !== action.name || !failure.error.fields) return null;
    var f = failure.error.fields.filter(function (x) { return x.field === name; })[0];
    return f ? f.error : null;
  }
  function input(id, p, values, problem, errId, hintId) {
    var describe = [hintId, problem ? errId : null].filter(Boolean).join(' ') || null;
    var common = { id: id, name: p.name, 'aria-invalid': problem ? 'true' : null, 'aria-describedby': describe, required: p.required && p.kind !== 'bool' };
    var set = function (e) { values[p.name] = p.kind === 'bool' ? e.target.checked : e.target.value; };
    if (p.kind === 'bool') {
      common.type = 'checkbox'; common.checked = !!values[p.name]; common.onchange = set;
      return el('input', common);
    }
    if (p.kind === 'choice') {
      common.onchange = set;
      var current = values[p.name] || '';
      return el('select', common, el('option', { value: '', text: 'Choose…' }),
        p.choices.map(function (c) { return el('option', { value: c, selected: c === current, text: c }); }));
    }
    common.type = p.kind === 'secret' ? 'password' : (p.kind === 'integer' || p.kind === 'number') ? 'text' : 'text';
    if (p.kind === 'integer') common.inputmode = 'numeric';
    if (p.kind === 'secret') common.autocomplete = 'off';
    common.value = values[p.name] || '';
    common.oninput = set;
    return el('input', common);
  }
  function actionForm(win, action, failure) {
    var scope = scopeKey(win);
    var state = forms[scope + '|' + action.name];
    var base = 'pv-' + slug(scope || 'app') + '-' + slug(action.name);
    var rows = action.params.map(function (p) {
      var id = base + '-' + slug(p.name);
      var problem = fieldError(failure, action, p.name);
      var source = (action.sources || []).filter(function (s) { return s.argument === p.name; })[0];
      var hint = [p.description, source ? 'Choose a row in ' + source.tableTitle + ' to fill this in.' : null]
        .filter(Boolean).join(' ');
      var hintId = hint ? id + '-hint' : null;
      return el('div', { 'class': 'pv-row' },
        el('label', { 'for': id }, p.label + (p.required ? ' *' : '')),
        input(id, p, state.values, problem, id + '-error', hintId),
        hintId ? el('span', { id: hintId, 'class': 'pv-weak', text: hint }) : null,
        problem ? el('span', { id: id + '-error', 'class': 'pv-error', text: p.label + ': ' + problem }) : null);
    });
    var submit = function (e) {
      e.preventDefault();
      // What was typed goes to the call as it is; a secret is then
      // forgotten by the page (copied first: the form keeps no reference).
      var values = Object.assign({}, state.values);
      action.params.forEach(function (p) { if (p.kind === 'secret') delete state.values[p.name]; });
      start(win, action, values);
    };
    return el('form', { 'class': 'pv-form', 'aria-label': action.title, onsubmit: submit },
      action.description ? el('p', { 'class': 'pv-weak', text: action.description }) : null,
      rows,
      el('div', { 'class': 'pv-bar' },
        // The click itself submits: a host's sandboxed frame may forbid
        // form submission (Enter still clicks this default button).
        el('button', { type: 'submit', 'class': action.destructive ? 'pv-danger' : null, onclick: submit }, action.title),
        el('button', { type: 'button', 'aria-label': 'Close the ' + action.title + ' form',
          onclick: function () { delete forms[scope + '|' + action.name]; render(); } }, 'Cancel')));
  }
  function confirmBox(win) {
    if (!confirming || confirming.scope !== scopeKey(win)) return null;
    var c = confirming;
    return el('div', { 'class': 'pv-confirm', role: 'alertdialog', 'aria-labelledby': 'pv-confirm-text' },
      el('p', { id: 'pv-confirm-text', text: 'Really ' + c.action.title.toLowerCase() + '? ' + (c.action.description || 'This cannot be undone.') }),
      el('div', { 'class': 'pv-bar' },
        el('button', { type: 'button', 'class': 'pv-danger', onclick: function () { confirming = null; call(c.win, c.action, c.values, true); } }, 'Yes, ' + c.action.title),
        el('button', { type: 'button', id: 'pv-confirm-no', onclick: function () { confirming = null; render(); } }, 'No')));
  }
  function actionBar(win, actions, enabled) {
    var scope = scopeKey(win);
    var failure = failures[scope];
    var hidden = {};
    if (win && win.paged) Object.keys(win.paged).forEach(function (k) { hidden[win.paged[k]] = true; });
    var shown = actions.filter(function (a) { return !hidden[a.name]; });
    var buttons = shown.map(function (a) {
      var open = forms[scope + '|' + a.name];
      return el('button', { type: 'button', disabled: !enabled, 'class': a.destructive ? 'pv-danger' : null,
        'aria-expanded': a.params.length ? String(!!open) : null, title: a.description || null,
        onclick: function () {
          if (!a.params.length) { start(win, a, {}); return; }
          if (open) delete forms[scope + '|' + a.name]; else forms[scope + '|' + a.name] = { values: {} };
          render();
          var first = document.querySelector('#pv-' + slug(scope || 'app') + '-' + slug(a.name) + '-' + slug(a.params[0].name));
          if (first && !open) first.focus();
        } }, a.title + (a.params.length ? '…' : ''));
    });
    var open = shown.filter(function (a) { return forms[scope + '|' + a.name] && a.params.length; });
    return el('div', null,
      el('div', { 'class': 'pv-bar', role: 'toolbar', 'aria-label': 'Actions' }, buttons),
      enabled ? open.map(function (a) { return actionForm(win, a, failure); }) : null,
      confirmBox(win),
      failure ? el('p', { 'class': 'pv-error', role: 'alert', text: failure.error.message }) : null);
  }

  // ---- windows -----------------------------------------------------------
  function prompt(q) {
    return el('div', { 'class': 'pv-question', role: 'group', 'aria-label': 'Approval question' },
      el('pre', { text: q.text }),
      transport.canAnswer && scene.answering ? el('div', { 'class': 'pv-bar' },
        el('button', { type: 'button', onclick: function () { answer(q.id, true); } }, 'Approve'),
        el('button', { type: 'button', onclick: function () { answer(q.id, false); } }, 'Decline')) :
        el('p', { 'class': 'pv-weak', text: transport.whereToAnswer || 'Answer it where the app asks the person.' }));
  }
  function windowCard(win) {
    var titleId = 'pv-title-' + slug(win.id);
    var agentCue = win.asking.length ? 'Agent is waiting for your approval' : (win.agentHere ? 'Agent is working here' : null);
    var owner = win.ownerId && scene.windows.filter(function (w) { return w.id === win.ownerId; })[0];
    var content = el('div', { 'class': 'pv-content', inert: !win.operable },
      win.blocks.map(function (b, i) { return block(win, b, i); }),
      actionBar(win, win.actions, win.operable));
    return el('section', {
      'class': 'pv-window' + (win.operable ? '' : ' pv-blocked') + (win.agentHere || win.asking.length ? ' pv-agent' : '') + (win.modal ? ' pv-modal' : ''),
      id: 'pv-window-' + slug(win.id), role: win.modal ? 'dialog' : 'region', 'aria-labelledby': titleId,
      'aria-disabled': win.operable ? null : 'true', 'data-window': win.id, 'data-version': win.version
    },
      el('h2', { id: titleId, text: win.title }),
      owner ? el('p', { 'class': 'pv-weak', text: 'Dialog of ' + owner.title }) : null,
      win.summary ? el('p', { 'class': 'pv-summary', text: win.summary }) : null,
      agentCue ? el('p', { 'class': 'pv-cue', role: 'status', text: agentCue }) : null,
      win.asking.map(prompt),
      win.operable ? null : el('p', { 'class': 'pv-blocker', text: 'Blocked by ' + (win.blockedByTitle || 'a dialog') }),
      content);
  }

  // ---- the whole page ----------------------------------------------------
  function render() {
    if (!scene) return;
    var focused = document.activeElement && document.activeElement.id;
    var caret = null;
    try { caret = focused && document.activeElement.selectionStart; } catch (e) { caret = null; }
    root.textContent = '';
    if (scene.error) { root.appendChild(el('p', { 'class': 'pv-error', role: 'alert', text: scene.error })); return; }
    var modalId = scene.appModal;
    var others = scene.windows.filter(function (w) { return w.id !== modalId; });
    var app = el('section', { 'class': 'pv-app', 'aria-label': 'The app', inert: !!modalId },
      scene.agent ? el('p', { 'class': 'pv-cue', role: 'status', text: 'Agent last: ' + scene.agent.action + (scene.agent.window ? ' in ' + scene.agent.window : '') }) : null,
      scene.questions.map(prompt),
      el('ul', { 'class': 'pv-list', 'aria-label': 'Open windows' }, scene.windows.map(function (w) {
        return el('li', null, el('a', { href: '#pv-window-' + slug(w.id), text: w.title + (w.operable ? '' : ' (blocked)') + (w.agentHere ? ' · agent here' : '') }));
      })),
      scene.appActions && scene.appActions.length ? actionBar(null, scene.appActions, true) : null);
    root.appendChild(app);
    root.appendChild(el('div', { 'class': 'pv-windows', inert: !!modalId }, others.map(windowCard)));
    var modal = modalId && scene.windows.filter(function (w) { return w.id === modalId; })[0];
    if (modal) {
      var card = windowCard(modal);
      card.setAttribute('aria-modal', 'true');
      root.appendChild(el('div', { 'class': 'pv-overlay' }, card));
    }
    var again = focused && document.getElementById(focused);
    if (again) {
      again.focus();
      if (caret !== null && caret !== undefined && again.setSelectionRange) { try { again.setSelectionRange(caret, caret); } catch (e) { /* not a text input */ } }
    } else if (modal && !modal.contains) {
      // nothing
    }
    status.textContent = busy ? 'Working…' : (status.dataset.live || 'Live');
  }

  transport.listen(function (next) {
    scene = next;
    render();
  }, function (word) { status.dataset.live = word; status.textContent = word; });
})();
