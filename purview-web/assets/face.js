// The person's face of a Purview app: draws the scene the server sends
// (every window, its blocks, its actions as forms), runs the person's calls
// and answers, and redraws on every change. No framework, no build step.
(function () {
  'use strict';
  // How the page talks to the app: the web face's own routes, or a host's
  // bridge (the MCP Apps card sets window.PurviewTransport first).
  var transport = window.PurviewTransport || (function () {
    var prefix = document.querySelector('meta[name="purview-prefix"]').content;
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
    // A connection cut before the answer (under load) is tried again.
    var exchange = function (tries) {
      return send('open', { key: key[1] }).catch(function (why) {
        if (tries <= 1) throw why;
        return new Promise(function (later) { setTimeout(later, 500); }).then(function () { return exchange(tries - 1); });
      });
    };
    var ready = !key ? Promise.resolve() : exchange(6).then(function (answer) {
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
    // An event carries the page's top, the windows' order if it changed,
    // and the windows changed since the stream's last event (all at first).
    var had = Object.create(null), order = [];
    function merge(cut) {
      cut.windows.forEach(function (w) { had[w.id] = w; });
      var next = cut.top, kept = Object.create(null);
      order = cut.ids || order;
      next.windows = order.map(function (id) { return (kept[id] = had[id]); });
      had = kept; next.words = cut.words;
      return next;
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
                if (name === 'scene') onScene(merge(JSON.parse(data.join('\n'))));
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

  // The page draws the model the server sends (purview_person): every
  // sentence, field, confirmation question and pager target comes in it.
  // What stays here is what the person holds open in this page: typed
  // text, the page of rows shown, the question asked, the last failure.
  var root = document.getElementById('purview');
  var status = document.getElementById('pv-status');
  var scene = null, words = {};
  // Keyed by window ids, which may be any name (`constructor` too): maps
  // without a prototype.
  var forms = Object.create(null);      // scope|action -> {values}
  var failures = Object.create(null);   // scope -> {action, error, said: the model's sentence}
  var confirming = null;                // {scope, win, action, values}
  var pages = Object.create(null);      // window|table -> {version, offset, rows, paging}
  var seenModals = Object.create(null); // dialogs already brought into view
  var drawn = Object.create(null);      // window id -> {win, node}: as last drawn
  var drawnApp = {};                    // the app's own actions, as last drawn
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
    // Children: nodes, text, or lists of them; nothing for a missing one.
    for (var i = 2; i < arguments.length; i++) {
      [].concat(arguments[i]).forEach(function (c) { if (c) node.append(c); });
    }
    return node;
  }
  function slug(s) { return String(s).replace(/[^A-Za-z0-9_-]/g, '_'); }
  function scopeKey(win) { return win ? win.id : ''; }
  function fill(template, values) {
    return String(template).replace(/\{(\w+)\}/g, function (m, k) { return values[k] !== undefined ? values[k] : m; });
  }

  // ---- calls -------------------------------------------------------------
  function call(win, action, body, then) {
    var scope = scopeKey(win);
    busy++;
    body.window = win ? win.id : null;
    body.action = action.name;
    transport.post('call', body)
      .then(function (answer) {
        if (answer && answer.error) {
          failures[scope] = { action: body.page ? null : action.name, error: answer.error, said: answer.said };
        } else {
          delete failures[scope];
          if (!body.page) delete forms[scope + '|' + action.name];
          if (then) then(answer || {});
        }
      })
      .catch(function () { failures[scope] = { action: action.name, error: { message: words.unreachable }, said: words.unreachable }; })
      .then(function () { busy--; render(); });
    render(); // "Working…", and a secret just sent is gone from its field
  }
  function start(win, action, values) {
    if (action.confirm) {
      confirming = { scope: scopeKey(win), win: win, action: action, values: values };
      render();
      var no = document.getElementById('pv-confirm-no');
      if (no) no.focus();
      return;
    }
    call(win, action, { values: values, confirmed: false });
  }
  function answer(id, approve) { transport.post('answer', { id: id, approve: approve }).then(render, render); }
  function load(win, table, where) {
    var key = win.id + '|' + table.key;
    call(win, { name: table.loader }, { page: Object.assign({ table: table.key }, where) }, function (ans) {
      if (ans.page) pages[key] = { version: win.version, offset: ans.page.offset, rows: ans.page.rows, paging: ans.page.paging };
    });
  }

  // ---- blocks ------------------------------------------------------------
  function tableBlock(win, b) {
    var key = win.id + '|' + b.key;
    var page = pages[key];
    // The person's page stays through a change, loaded again at its rows.
    if (page && page.version !== win.version && !page.again && b.loader) {
      page.again = true;
      setTimeout(function () { load(win, b, { offset: page.offset }); }, 0);
    }
    var rows = page ? page.rows : b.rows;
    var paging = page ? page.paging : b.paging;
    // The model says which open forms' arguments its rows may fill.
    var pickers = (win.operable ? b.fills : []).filter(function (f) { return forms[win.id + '|' + f.action]; });
    var table = el('table', { 'class': 'pv-table' },
      el('thead', null, el('tr', null,
        pickers.map(function (p) { return el('th', { scope: 'col', 'class': 'pv-pick', 'aria-label': p.note }); }),
        b.columns.map(function (c) { return el('th', { scope: 'col', text: c }); }))),
      el('tbody', null, rows.map(function (r) {
        return el('tr', null,
          pickers.map(function (p) { return el('td', { 'class': 'pv-pick' }, pickButton(win, p, r)); }),
          r.map(function (v) { return el('td', { text: v }); }));
      })));
    var parts = pickers.map(function (p) { return el('p', { 'class': 'pv-weak', text: p.note }); });
    parts.push(el('div', { 'class': 'pv-tablewrap', id: 'pv-rows-' + slug(win.id) + '-' + slug(b.key) }, table));
    if (paging) parts.push(el('p', { 'class': 'pv-weak', text: paging.label }));
    if (paging && b.loader && win.operable) parts.push(pager(win, b, paging));
    return el('div', { 'class': 'pv-tableblock' }, parts);
  }
  function pager(win, b, paging) {
    var go = function (label, to) {
      return el('button', { type: 'button', disabled: to === null, onclick: function () { load(win, b, { offset: to }); } }, label);
    };
    var id = 'pv-row-' + slug(win.id) + '-' + slug(b.key);
    var jump = function (e) { e.preventDefault(); load(win, b, { row: document.getElementById(id).value }); };
    return el('form', { 'class': 'pv-bar pv-pager', onsubmit: jump },
      go(words.firstRows, paging.first), go(words.previousRows, paging.previous),
      go(words.nextRows, paging.next), go(words.lastRows, paging.last),
      el('label', { 'for': id, text: words.goToRow }),
      el('input', { id: id, type: 'text', inputmode: 'numeric', size: 6, placeholder: paging.rowHint }),
      el('button', { type: 'submit', onclick: jump }, words.go));
  }
  function pickButton(win, p, row) {
    var values = forms[win.id + '|' + p.action].values, value = row[p.column] || '';
    var chosen = value !== '' && String(values[p.field] || '') === value;
    return el('button', { type: 'button', 'aria-pressed': String(chosen),
      'aria-label': fill(words.chooseValue, { value: value, label: p.label, action: p.actionTitle }),
      onclick: function () { values[p.field] = value; render(); } },
      chosen ? words.chosen : words.choose);
  }
  function block(win, b) {
    switch (b.type) {
      case 'text': return el('p', { text: b.text });
      case 'fields': return el('div', null, b.title ? el('strong', { text: b.title }) : null,
        el('dl', { 'class': 'pv-fields' }, b.items.map(function (item) {
          return el('div', null, el('dt', { text: item[0] }), el('dd', { text: item[1] }));
        })));
      case 'table': return tableBlock(win, b);
      case 'list': return el('div', null, el('ul', { 'class': 'pv-marked' }, b.items.map(function (i) {
        return el('li', null, el('span', { 'class': 'pv-mark', text: i[0] }), ' ' + i[1]);
      })), b.more ? el('p', { 'class': 'pv-weak', text: b.more }) : null);
      case 'notice':
        return el('div', { 'class': 'pv-notice pv-' + b.severity, role: b.severity === 'error' ? 'alert' : 'status' }, b.word + ': ' + b.text);
      case 'media': {
        var img = (/^image\//.test(b.mimeType) && /^data:image\//.test(b.url)) ? el('img', { src: b.url, alt: b.described ? b.caption : '' }) : null;
        return el('figure', null, img, el('figcaption', { text: b.caption }));
      }
      default:
        return el('details', null, el('summary', null, words.details), el('pre', { text: b.json }));
    }
  }

  // ---- forms and actions -------------------------------------------------
  function fieldError(failure, action, name) {
    if (!failure || failure.action !== action.name || !failure.error.fields) return null;
    var f = failure.error.fields.filter(function (x) { return x.field === name; })[0];
    return f ? f.error : null;
  }
  function input(id, f, values, problem, describe) {
    var common = { id: id, name: f.name, 'aria-invalid': problem ? 'true' : null, 'aria-describedby': describe || null, required: f.required && f.kind !== 'bool' };
    var set = function (e) { values[f.name] = f.kind === 'bool' ? e.target.checked : e.target.value; };
    if (f.kind === 'bool') {
      common.type = 'checkbox'; common.checked = !!values[f.name]; common.onchange = set;
      return el('input', common);
    }
    if (f.kind === 'choice') {
      common.onchange = set;
      var current = values[f.name] || '';
      return el('select', common, el('option', { value: '', text: words.choosePlaceholder }),
        f.choices.map(function (c) { return el('option', { value: c, selected: c === current, text: c }); }));
    }
    common.type = f.kind === 'secret' ? 'password' : 'text';
    if (f.kind === 'integer' || f.kind === 'number') common.inputmode = f.kind === 'integer' ? 'numeric' : 'decimal';
    if (f.kind === 'secret') common.autocomplete = 'off';
    common.placeholder = f.placeholder;
    common.value = values[f.name] || '';
    common.oninput = set;
    return el('input', common);
  }
  function actionForm(win, action, failure) {
    var scope = scopeKey(win);
    var state = forms[scope + '|' + action.name];
    var base = 'pv-' + slug(scope || 'app') + '-' + slug(action.name);
    var rows = action.fields.map(function (f) {
      var id = base + '-' + slug(f.name);
      var problem = fieldError(failure, action, f.name);
      var hint = [f.help, f.from ? f.from.hint : null, f.bounds].filter(Boolean).join(' ');
      var hintId = hint ? id + '-hint' : null;
      return el('div', { 'class': 'pv-row' },
        el('label', { 'for': id }, f.label + (f.required ? ' *' : '')),
        input(id, f, state.values, problem, [hintId, problem ? id + '-error' : null].filter(Boolean).join(' ')),
        hintId ? el('span', { id: hintId, 'class': 'pv-weak', text: hint }) : null,
        problem ? el('span', { id: id + '-error', 'class': 'pv-error', text: fill(words.fieldProblem, { label: f.label, problem: problem }) }) : null);
    });
    var submit = function (e) {
      e.preventDefault();
      // What was typed goes to the call as it is (a copy); a secret is
      // then forgotten by the page.
      var values = Object.assign({}, state.values);
      action.fields.forEach(function (f) { if (f.kind === 'secret') delete state.values[f.name]; });
      start(win, action, values);
    };
    var cancel = function () {
      delete forms[scope + '|' + action.name];
      if (failures[scope] && failures[scope].action === action.name) delete failures[scope];
      render();
    };
    return el('form', { 'class': 'pv-form', 'aria-label': action.title, onsubmit: submit },
      action.description ? el('p', { 'class': 'pv-weak', text: action.description }) : null,
      rows,
      el('div', { 'class': 'pv-bar' },
        // The click itself submits: a host's sandboxed frame may forbid
        // form submission (Enter still clicks this default button).
        el('button', { type: 'submit', 'class': action.destructive ? 'pv-danger' : null, onclick: submit }, action.title),
        el('button', { type: 'button', 'aria-label': fill(words.closeForm, { action: action.title }), onclick: cancel }, words.cancel)));
  }
  function confirmBox(win) {
    if (!confirming || confirming.scope !== scopeKey(win)) return null;
    var c = confirming, q = c.action.confirm;
    return el('div', { 'class': 'pv-confirm', role: 'alertdialog', 'aria-labelledby': 'pv-confirm-text' },
      el('p', { id: 'pv-confirm-text', text: q.question }),
      q.description ? el('p', { 'class': 'pv-weak', text: q.description }) : null,
      el('div', { 'class': 'pv-bar' },
        el('button', { type: 'button', 'class': 'pv-danger', onclick: function () { confirming = null; call(c.win, c.action, { values: c.values, confirmed: true }); } }, q.yes),
        el('button', { type: 'button', id: 'pv-confirm-no', onclick: function () { confirming = null; render(); } }, q.no)));
  }
  function actionBar(win, actions, enabled) {
    var scope = scopeKey(win);
    var failure = failures[scope];
    var buttons = actions.map(function (a) {
      var open = forms[scope + '|' + a.name];
      return el('button', { type: 'button', disabled: !enabled, 'class': a.destructive ? 'pv-danger' : null,
        'aria-expanded': a.fields.length ? String(!!open) : null, title: a.description || null,
        onclick: function () {
          if (!a.fields.length) { start(win, a, {}); return; }
          if (open) delete forms[scope + '|' + a.name]; else forms[scope + '|' + a.name] = { values: Object.create(null) };
          render();
          var first = document.getElementById('pv-' + slug(scope || 'app') + '-' + slug(a.name) + '-' + slug(a.fields[0].name));
          if (first && !open) first.focus();
        } }, a.button);
    });
    var open = actions.filter(function (a) { return forms[scope + '|' + a.name] && a.fields.length; });
    return el('div', null,
      el('div', { 'class': 'pv-bar', role: 'toolbar', 'aria-label': words.regions[2] }, buttons),
      enabled ? open.map(function (a) { return actionForm(win, a, failure); }) : null,
      confirmBox(win),
      failure && failure.said ? el('p', { 'class': 'pv-error', role: 'alert', text: failure.said }) : null);
  }

  // ---- windows -----------------------------------------------------------
  function prompt(q) {
    return el('div', { 'class': 'pv-question', role: 'group', 'aria-label': words.regions[3] },
      el('pre', { text: q.text }),
      transport.canAnswer && scene.answering ? el('div', { 'class': 'pv-bar' },
        el('button', { type: 'button', onclick: function () { answer(q.id, true); } }, words.approve),
        el('button', { type: 'button', onclick: function () { answer(q.id, false); } }, words.decline)) :
        el('p', { 'class': 'pv-weak', text: transport.whereToAnswer || words.answerElsewhere }));
  }
  function windowCard(win) {
    var titleId = 'pv-title-' + slug(win.id);
    var content = el('div', { 'class': 'pv-content', inert: !win.operable },
      win.blocks.map(function (b) { return block(win, b); }),
      actionBar(win, win.actions, win.operable));
    return el('section', {
      'class': 'pv-window' + (win.operable ? '' : ' pv-blocked') + (win.agentHere ? ' pv-agent' : '') + (win.modal ? ' pv-modal' : ''),
      id: 'pv-window-' + slug(win.id), role: win.modal ? 'dialog' : 'region', 'aria-labelledby': titleId,
      'aria-disabled': win.operable ? null : 'true', 'data-window': win.id, 'data-version': win.version
    },
      el('h2', { id: titleId, text: win.name }),
      win.owner ? el('p', { 'class': 'pv-weak', text: win.owner }) : null,
      win.summary ? el('p', { 'class': 'pv-summary', text: win.summary }) : null,
      win.cue ? el('p', { 'class': 'pv-cue', role: 'status', text: win.cue }) : null,
      win.questions.map(prompt),
      win.blocker ? el('p', { 'class': 'pv-blocker', text: win.blocker }) : null,
      content);
  }

  // ---- the whole page ----------------------------------------------------
  // Children of `parent` made `nodes`, in order, leaving in place every
  // node already there: a kept window is never taken out of the page.
  function place(parent, nodes) {
    var wanted = new Set(nodes);
    Array.prototype.slice.call(parent.children).forEach(function (n) { if (!wanted.has(n)) n.remove(); });
    nodes.forEach(function (n, i) { if (parent.children[i] !== n) parent.insertBefore(n, parent.children[i] || null); });
  }
  // A change the app made redraws only the windows it changed; what the
  // person did redraws them all. A kept window keeps everything the page
  // holds in it: the field being typed into (an input method's unfinished
  // word too), its selection, how far its tables are scrolled.
  function render(fromEvent) {
    if (!scene) return;
    var focused = document.activeElement && document.activeElement.id;
    var caret = focused ? document.activeElement.selectionStart : null;
    var scrollers = '.pv-tablewrap, .pv-overlay .pv-window', scrolled = Object.create(null);
    root.querySelectorAll(scrollers).forEach(function (n) { scrolled[n.id] = [n.scrollLeft, n.scrollTop]; });
    var before = drawn;
    drawn = Object.create(null);
    if (scene.error) { root.replaceChildren(el('p', { 'class': 'pv-error', role: 'alert', text: scene.error })); return; }
    var keep = function (w) {
      var was = before[w.id];
      drawn[w.id] = { win: w, node: fromEvent === true && was && was.win === w ? was.node : windowCard(w) };
      return drawn[w.id].node;
    };
    var modalId = scene.appModal;
    // The app's own actions stay as drawn while an event leaves them alike.
    var actionsAre = JSON.stringify([scene.appActions, scene.appActionsEnabled]);
    var bar = fromEvent === true && drawnApp.are === actionsAre ? drawnApp.bar :
      (scene.appActions.length ? actionBar(null, scene.appActions, scene.appActionsEnabled) : null);
    drawnApp = { are: actionsAre, bar: bar };
    var app = root.querySelector('.pv-app') || el('section', { 'class': 'pv-app', 'aria-label': words.regions[0] });
    app.inert = !!modalId;
    var lines = el('ul', { 'class': 'pv-list', 'aria-label': words.regions[1] }, scene.windows.map(function (w) {
      return el('li', null, el('a', { href: '#pv-window-' + slug(w.id), text: w.line }));
    }));
    place(app, [scene.agentLast ? el('p', { 'class': 'pv-cue', role: 'status', text: scene.agentLast }) : null]
      .concat(scene.questions.map(prompt), [lines, bar]).filter(Boolean));
    var list = root.querySelector('.pv-windows') || el('div', { 'class': 'pv-windows' });
    list.inert = !!modalId;
    place(list, scene.windows.filter(function (w) { return w.id !== modalId; }).map(keep));
    var modal = scene.windows.filter(function (w) { return w.id === modalId; }).map(keep);
    modal.forEach(function (n) { n.setAttribute('aria-modal', 'true'); });
    var overlay = root.querySelector('.pv-overlay') || el('div', { 'class': 'pv-overlay' });
    place(overlay, modal);
    place(root, [app, list].concat(modal.length ? [overlay] : []));
    var again = focused && document.getElementById(focused);
    if (again && again !== document.activeElement) {
      again.focus();
      try { if (caret != null) again.setSelectionRange(caret, caret); } catch (e) { /* no caret now */ }
    }
    root.querySelectorAll(scrollers).forEach(function (n) {
      if (scrolled[n.id]) { n.scrollLeft = scrolled[n.id][0]; n.scrollTop = scrolled[n.id][1]; }
    });
    // A dialog opened since the last draw is brought into view, once.
    scene.windows.forEach(function (w) {
      if (!w.modal || seenModals[w.id]) return;
      seenModals[w.id] = true;
      var shown = document.getElementById('pv-window-' + slug(w.id));
      if (shown && shown.scrollIntoView) shown.scrollIntoView({ block: 'nearest' });
    });
    status.textContent = busy ? words.working : (status.dataset.live || 'Live');
  }

  transport.listen(function (next) {
    scene = next;
    words = next.words || words;
    render(true);
  }, function (word) { status.dataset.live = word; status.textContent = word; });
})();
