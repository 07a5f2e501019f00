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
    // This tab's name: what the person holds open here is kept for it.
    var page = Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(12)), function (b) { return (b + 256).toString(16).slice(1); }).join('');
    // The one-time key came in the link's fragment, which no server saw;
    // it leaves the address bar and the history now.
    if (key) history.replaceState(null, '', location.pathname + location.search);
    // A request whose connection was cut before the answer, or that found
    // the app full (under load), is tried again: the key's exchange, and an
    // intent, which is numbered so the app takes it once however often it
    // arrives.
    var retried = function (kind, body, tries) {
      return send(kind, body).catch(function (why) {
        if (tries <= 1) throw why;
        return new Promise(function (later) { setTimeout(later, 500); }).then(function () { return retried(kind, body, tries - 1); });
      });
    };
    var ready = !key ? Promise.resolve() : retried('open', { key: key[1] }, 6).then(function (answer) {
      if (!answer.session) return;
      session = answer.session;
      try { localStorage.setItem(stored, session); } catch (e) { /* kept for this page only */ }
    });
    function send(kind, body) {
      return fetch(prefix + '/' + kind, {
        method: 'POST',
        credentials: 'omit',
        headers: { 'content-type': 'application/json', 'x-purview-session': session || '', 'x-purview-page': page },
        body: JSON.stringify(body)
      }).then(function (r) {
        if (r.status === 503) throw new Error('busy'); // full for now: tried again
        return r.json().catch(function () { return { error: { message: 'The app answered ' + r.status + '.' } }; });
      });
    }
    // An event carries the page's top, the windows' order if it changed,
    // the windows changed since the stream's last event (all at first),
    // and the app's own actions as this person has them, if they changed.
    var had = Object.create(null), order = [], app = null, numbered = 0;
    function merge(cut) {
      cut.windows.forEach(function (w) { had[w.id] = w; });
      var next = cut.top, kept = Object.create(null);
      order = cut.ids || order;
      next.windows = order.map(function (id) { return (kept[id] = had[id]); });
      had = kept; next.words = cut.words; next.app = app = cut.app || app;
      return next;
    }
    // The live events: server-sent events read through fetch, since an
    // EventSource cannot carry the credential's header.
    function events(onScene, onStatus) {
      var retry = function () { onStatus('Reconnecting…'); setTimeout(function () { events(onScene, onStatus); }, 2000); };
      fetch(prefix + '/events', { credentials: 'omit', cache: 'no-store', headers: { 'x-purview-session': session || '', 'x-purview-page': page } })
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
      post: function (intent) { intent.seq = ++numbered; return ready.then(function () { return retried('intent', intent, 6); }); },
      listen: function (onScene, onStatus) { ready.then(function () { events(onScene, onStatus); }); }
    };
  })();

  // The page draws what the server sends: the model (purview_person) and
  // what the person holds open in this tab, every sentence, field value,
  // question and pager target in it. It reports what the person does (an
  // intent) and decides nothing; the server's person does.
  var root = document.getElementById('purview');
  var status = document.getElementById('pv-status');
  var scene = null, words = {};
  var drawn = Object.create(null);      // window id -> {win, node}: as last drawn
  var drawnApp = {};                    // the app's own actions, as last drawn
  var seenModals = Object.create(null); // dialogs already brought into view
  var busy = 0, lost = false, focusNext = null;
  var queue = Promise.resolve(), typing = null, unsent = Object.create(null);

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
  function base(win, action) { return 'pv-' + slug(win ? win.id : 'app') + '-' + slug(action.name); }

  // ---- intents -------------------------------------------------------------
  // Reported one after another, in order; typing into one field again
  // before the last was reported replaces it. What the person typed shows
  // already, so it is reported quietly, and kept in its field through any
  // redraw until the server has it.
  function intend(intent) {
    var quiet = intent.kind === 'type', key = [intent.window, intent.action, intent.field].join('\n');
    if (quiet) unsent[key] = intent;
    if (quiet && typing && typing.key === key) { typing.text = intent.text; return; }
    typing = quiet ? intent : null;
    if (quiet) intent.key = key; else { busy++; drawStatus(); }
    if (!quiet && intent.kind !== 'press') focusNext = null;
    queue = queue.then(function () {
      if (typing === intent) typing = null;
      var text = intent.text;
      var sent = function () { if (unsent[key] && unsent[key].text === text) delete unsent[key]; };
      return transport.post(Object.assign({}, intent, { key: undefined })).then(function (answer) { sent(); return answer; },
        function (why) { sent(); throw why; });
    }).then(function (answer) { lost = !(answer && answer.done); }, function () { lost = true; })
      .then(function () { if (!quiet) busy--; render(); });
  }
  function act(intent) { return function (e) { if (e) e.preventDefault(); intend(intent); }; }

  // ---- blocks ------------------------------------------------------------
  function tableBlock(win, b) {
    var pickers = b.pickers || [];
    var table = el('table', { 'class': 'pv-table' },
      el('thead', null, el('tr', null,
        pickers.map(function (p) { return el('th', { scope: 'col', 'class': 'pv-pick', 'aria-label': p.note }); }),
        b.columns.map(function (c) { return el('th', { scope: 'col', text: c }); }))),
      el('tbody', null, b.rows.map(function (r, i) {
        return el('tr', null,
          pickers.map(function (p, k) {
            var button = p.buttons[i];
            return el('td', { 'class': 'pv-pick' }, el('button', { type: 'button', 'aria-pressed': String(button[1]), 'aria-label': button[2],
              onclick: act({ kind: 'choose', window: win.id, table: b.key, row: i, picker: k }) }, button[0]));
          }),
          r.map(function (v) { return el('td', { text: v }); }));
      })));
    var parts = pickers.map(function (p) { return el('p', { 'class': 'pv-weak', text: p.note }); });
    parts.push(el('div', { 'class': 'pv-tablewrap', id: 'pv-rows-' + slug(win.id) + '-' + slug(b.key) }, table));
    if (b.paging) parts.push(el('p', { 'class': 'pv-weak', text: b.paging.label }));
    if (b.paging && b.loader && win.operable) parts.push(pager(win, b, b.paging));
    if (b.refused) parts.push(el('p', { 'class': 'pv-error', role: 'alert', text: b.refused }));
    return el('div', { 'class': 'pv-tableblock' }, parts);
  }
  function pager(win, b, paging) {
    var go = function (label, to) {
      return el('button', { type: 'button', disabled: to === null, onclick: act({ kind: 'page', window: win.id, table: b.key, offset: to }) }, label);
    };
    var id = 'pv-row-' + slug(win.id) + '-' + slug(b.key);
    var jump = function (e) { e.preventDefault(); intend({ kind: 'goTo', window: win.id, table: b.key, text: document.getElementById(id).value }); };
    return el('form', { 'class': 'pv-bar pv-pager', onsubmit: jump },
      go(words.firstRows, paging.first), go(words.previousRows, paging.previous),
      go(words.nextRows, paging.next), go(words.lastRows, paging.last),
      el('label', { 'for': id, text: words.goToRow }),
      el('input', { id: id, type: 'text', inputmode: 'numeric', size: 6, placeholder: paging.rowHint }),
      el('button', { type: 'submit', onclick: jump }, words.go));
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
  function input(id, f, typed, describe) {
    var common = { id: id, name: f.name, 'aria-invalid': f.problem ? 'true' : null, 'aria-describedby': describe || null, required: f.required && f.kind !== 'bool' };
    var set = function (e) { typed(f.kind === 'bool' ? e.target.checked : e.target.value); };
    if (f.kind === 'bool') {
      common.type = 'checkbox'; common.checked = f.value === 'true'; common.onchange = set;
      return el('input', common);
    }
    if (f.kind === 'choice') {
      common.onchange = set;
      return el('select', common, el('option', { value: '', text: words.choosePlaceholder }),
        f.choices.map(function (c) { return el('option', { value: c, selected: c === f.value, text: c }); }));
    }
    common.type = f.kind === 'secret' ? 'password' : 'text';
    if (f.kind === 'integer' || f.kind === 'number') common.inputmode = f.kind === 'integer' ? 'numeric' : 'decimal';
    if (f.kind === 'secret') common.autocomplete = 'off';
    common.placeholder = f.placeholder;
    common.value = f.value || '';
    common.oninput = set;
    return el('input', common);
  }
  function actionForm(win, action) {
    var scope = win ? win.id : null, at = base(win, action);
    var rows = action.fields.map(function (f) {
      var id = at + '-' + slug(f.name);
      var hint = [f.help, f.from ? f.from.hint : null, f.bounds].filter(Boolean).join(' ');
      var hintId = hint ? id + '-hint' : null;
      var typed = function (text) { intend({ kind: 'type', window: scope, action: action.name, field: f.name, text: text }); };
      return el('div', { 'class': 'pv-row' },
        el('label', { 'for': id }, f.label + (f.required ? ' *' : '')),
        input(id, f, typed, [hintId, f.problem ? id + '-error' : null].filter(Boolean).join(' ')),
        hintId ? el('span', { id: hintId, 'class': 'pv-weak', text: hint }) : null,
        f.problem ? el('span', { id: id + '-error', 'class': 'pv-error', text: f.problem }) : null);
    });
    var submit = function (e) {
      e.preventDefault();
      intend({ kind: 'submit', window: scope, action: action.name });
      // A secret goes with the call and is gone from its field.
      e.target.closest('form').querySelectorAll('input[type=password]').forEach(function (n) { n.value = ''; });
    };
    return el('form', { 'class': 'pv-form', 'aria-label': action.title, onsubmit: submit },
      action.description ? el('p', { 'class': 'pv-weak', text: action.description }) : null,
      rows,
      el('div', { 'class': 'pv-bar' },
        // The click itself submits: a host's sandboxed frame may forbid
        // form submission (Enter still clicks this default button).
        el('button', { type: 'submit', 'class': action.destructive ? 'pv-danger' : null, onclick: submit }, action.title),
        el('button', { type: 'button', 'aria-label': fill(words.closeForm, { action: action.title }),
          onclick: act({ kind: 'cancel', window: scope, action: action.name }) }, words.cancel)));
  }
  function fill(template, values) {
    return String(template).replace(/\{(\w+)\}/g, function (m, k) { return values[k] !== undefined ? values[k] : m; });
  }
  // `held`: the window, or the app's own part, with the person's failure
  // and the question a destructive action asks, if any.
  function actionBar(win, actions, enabled, held) {
    var q = held.confirm;
    var buttons = actions.map(function (a) {
      return el('button', { type: 'button', disabled: !enabled, 'class': a.destructive ? 'pv-danger' : null,
        'aria-expanded': a.fields.length ? String(!!a.open) : null, title: a.description || null,
        onclick: function () {
          if (a.fields.length && !a.open) focusNext = base(win, a) + '-' + slug(a.fields[0].name);
          intend({ kind: 'press', window: win ? win.id : null, action: a.name });
        } }, a.button);
    });
    return el('div', null,
      el('div', { 'class': 'pv-bar', role: 'toolbar', 'aria-label': words.regions[2] }, buttons),
      enabled ? actions.filter(function (a) { return a.open; }).map(function (a) { return actionForm(win, a); }) : null,
      q ? el('div', { 'class': 'pv-confirm', role: 'alertdialog', 'aria-labelledby': 'pv-confirm-text' },
        el('p', { id: 'pv-confirm-text', text: q.question }),
        q.description ? el('p', { 'class': 'pv-weak', text: q.description }) : null,
        el('div', { 'class': 'pv-bar' },
          el('button', { type: 'button', 'class': 'pv-danger', onclick: act({ kind: 'confirm' }) }, q.yes),
          el('button', { type: 'button', id: 'pv-confirm-no', onclick: act({ kind: 'refuse' }) }, q.no))) : null,
      held.failure ? el('p', { 'class': 'pv-error', role: 'alert', text: held.failure }) : null);
  }

  // ---- windows -----------------------------------------------------------
  function prompt(q) {
    return el('div', { 'class': 'pv-question', role: 'group', 'aria-label': words.regions[3] },
      el('pre', { text: q.text }),
      transport.canAnswer && scene.answering ? el('div', { 'class': 'pv-bar' },
        el('button', { type: 'button', onclick: act({ kind: 'approve', id: q.id }) }, words.approve),
        el('button', { type: 'button', onclick: act({ kind: 'decline', id: q.id }) }, words.decline)) :
        el('p', { 'class': 'pv-weak', text: transport.whereToAnswer || words.answerElsewhere }));
  }
  function windowCard(win) {
    var titleId = 'pv-title-' + slug(win.id);
    var content = el('div', { 'class': 'pv-content', inert: !win.operable },
      win.blocks.map(function (b) { return block(win, b); }),
      actionBar(win, win.actions, win.operable, win));
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
  function drawStatus() { status.textContent = busy ? words.working : (status.dataset.live || 'Live'); }
  // Only the windows that changed are drawn again. A kept window keeps
  // everything the page holds in it: the field being typed into (an input
  // method's unfinished word too), its selection, how far its tables are
  // scrolled. A window drawn again keeps the focused field's text and
  // caret, and a typed secret, which the server never sends back.
  function render() {
    if (!scene) return;
    var active = document.activeElement, focused = active && active.id;
    var caret = focused ? [active.selectionStart, active.value] : null;
    var scrollers = '.pv-tablewrap, .pv-overlay .pv-window', scrolled = Object.create(null), secrets = Object.create(null);
    root.querySelectorAll(scrollers).forEach(function (n) { scrolled[n.id] = [n.scrollLeft, n.scrollTop]; });
    root.querySelectorAll('input[type=password]').forEach(function (n) { secrets[n.id] = n.value; });
    var asked = !!document.getElementById('pv-confirm-no');
    var before = drawn;
    drawn = Object.create(null);
    if (scene.error) { root.replaceChildren(el('p', { 'class': 'pv-error', role: 'alert', text: scene.error })); return; }
    var keep = function (w) {
      var was = before[w.id];
      drawn[w.id] = { win: w, node: was && was.win === w ? was.node : windowCard(w) };
      return drawn[w.id].node;
    };
    var modalId = scene.appModal, own = scene.app || { actions: scene.appActions };
    // The app's own actions stay as drawn while they are alike.
    var actionsAre = JSON.stringify([own, scene.appActionsEnabled]);
    var bar = drawnApp.are === actionsAre ? drawnApp.bar :
      (own.actions.length ? actionBar(null, own.actions, scene.appActionsEnabled, own) : null);
    drawnApp = { are: actionsAre, bar: bar };
    var app = root.querySelector('.pv-app') || el('section', { 'class': 'pv-app', 'aria-label': words.regions[0] });
    app.inert = !!modalId;
    var lines = el('ul', { 'class': 'pv-list', 'aria-label': words.regions[1] }, scene.windows.map(function (w) {
      return el('li', null, el('a', { href: '#pv-window-' + slug(w.id), text: w.line }));
    }));
    place(app, [lost ? el('p', { 'class': 'pv-error', role: 'alert', text: words.unreachable }) : null,
      scene.agentLast ? el('p', { 'class': 'pv-cue', role: 'status', text: scene.agentLast }) : null]
      .concat(scene.questions.map(prompt), [lines, bar]).filter(Boolean));
    var list = root.querySelector('.pv-windows') || el('div', { 'class': 'pv-windows' });
    list.inert = !!modalId;
    place(list, scene.windows.filter(function (w) { return w.id !== modalId; }).map(keep));
    var modal = scene.windows.filter(function (w) { return w.id === modalId; }).map(keep);
    modal.forEach(function (n) { n.setAttribute('aria-modal', 'true'); });
    var overlay = root.querySelector('.pv-overlay') || el('div', { 'class': 'pv-overlay' });
    place(overlay, modal);
    place(root, [app, list].concat(modal.length ? [overlay] : []));
    Object.keys(secrets).forEach(function (id) { var n = document.getElementById(id); if (n && !n.value) n.value = secrets[id]; });
    Object.keys(unsent).forEach(function (key) {
      var t = unsent[key], n = document.getElementById(base(t.window === null ? null : { id: t.window }, { name: t.action }) + '-' + slug(t.field));
      if (!n) delete unsent[key]; else if (n.type === 'checkbox') n.checked = t.text === true; else n.value = t.text;
    });
    var again = focused && document.getElementById(focused);
    if (again && again !== active) {
      if (again.type === 'text' || again.type === 'password') again.value = caret[1];
      again.focus();
      try { if (caret[0] != null) again.setSelectionRange(caret[0], caret[0]); } catch (e) { /* no caret now */ }
    }
    var next = (focusNext && document.getElementById(focusNext)) || (!asked && document.getElementById('pv-confirm-no'));
    if (next) { next.focus(); focusNext = null; }
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
    drawStatus();
  }

  transport.listen(function (next) {
    scene = next;
    words = next.words || words;
    render();
  }, function (word) { status.dataset.live = word; status.textContent = word; });
})();
