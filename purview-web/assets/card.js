// The window card inside an MCP Apps host: the face's renderer, talking
// only to the host, over its postMessage JSON-RPC (ui/initialize, then
// tools/call proxied to the app's server). Its calls are an agent's calls
// (the host cannot tell them from the model's), so it never answers an
// approval question: it says where the person answers it.
//
// At home in the host: it takes the host's theme, style variables, fonts,
// safe area and container size (from ui/initialize, then every
// host-context-changed); fills a fixed height without reporting sizes and
// reports its content's height (never the viewport's) for a flexible one,
// debounced and only on a real change, so no host resize feeds back into
// a report; stops every loop and request on teardown before answering;
// shows a cancelled tool; and never acts on tool-input (some hosts show a
// card before the person approved its call).
(function () {
  'use strict';
  var host = window.parent;
  var root = document.documentElement;
  var notice = document.getElementById('pv-notice');
  var modes = document.getElementById('pv-modes');
  var nextId = 1;
  var waiting = {};
  var closed = false;    // torn down: nothing more is sent
  var timers = [];       // every pending timer, cleared on teardown
  var change = null, mine = null; // the change (and the card's own state) last read
  var reading = false;   // a scene read is under way
  var again = false;     // read once more when it ends
  var onScene = function () {};
  var onStatus = function () {};
  var context = {};      // the host's context, as last told
  var sizes = null;      // the ResizeObserver, while the height is the card's
  var sizeTimer = null;
  var told = 0;          // the height last reported
  var seen = null;       // when the last scene arrived
  var result = null;     // the last tool result's windows, and when it came
  var windowsRead = Object.create(null); // window id -> {text, win}, as last read
  var making = Promise.resolve(), calls = 1; // the calls the card makes, in turn
  // This card's name: what the person holds open in it is kept for it.
  var name = Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(12)), function (b) { return (b + 256).toString(16).slice(1); }).join('');

  function send(message) { if (!closed) host.postMessage(message, '*'); }
  function later(fn, ms) {
    var t = setTimeout(function () { timers = timers.filter(function (x) { return x !== t; }); fn(); }, ms);
    timers.push(t);
  }
  function request(method, params) {
    return new Promise(function (resolve, reject) {
      if (closed) return;
      var id = nextId++;
      waiting[id] = { resolve: resolve, reject: reject };
      send({ jsonrpc: '2.0', id: id, method: method, params: params });
    });
  }
  function tool(name, args) {
    return request('tools/call', { name: name, arguments: args }).then(function (answer) {
      return (answer && answer.structuredContent) || {};
    });
  }
  function clock(at) {
    var options = context.timeZone ? { timeZone: context.timeZone } : undefined;
    try { return at.toLocaleTimeString(context.locale || undefined, options); } catch (e) { return at.toLocaleTimeString(); }
  }
  function say(text, kind) {
    notice.textContent = text || '';
    notice.className = text ? 'pv-notice ' + (kind || 'pv-info') : '';
  }

  // The scene, now (after a change the card made or heard of) or once it
  // changes after the last read: one read at a time, each waiting on the
  // server for the next change, so nothing polls.
  function read(now) {
    if (closed) return;
    if (reading) { again = again || now; return; }
    reading = true;
    tool('app__card_scene', now || change === null ? { card: name } : { after: change, mine: mine, card: name }).then(function (answer) {
      if (typeof answer.sceneJson !== 'string') { unreachable(); return 3000; }
      // Every client's card shares the scene's text; its own questions,
      // and what the person holds open in this card, come beside it.
      var scene = JSON.parse(answer.sceneJson), mine = answer.windowQuestions || [], own = answer.ownWindows || [];
      scene.questions = answer.questions || [];
      scene.app = JSON.parse(answer.app || 'null');
      // An unchanged window keeps its object: the face keeps it as drawn.
      var kept = Object.create(null);
      scene.windows = (scene.windows || []).map(function (w, i) {
        var text = (own[i] || JSON.stringify(w)) + JSON.stringify(mine[i] || []), was = windowsRead[w.id];
        if (!(was && was.text === text)) { was = { text: text, win: own[i] ? JSON.parse(own[i]) : w }; was.win.questions = mine[i] || []; }
        return (kept[w.id] = was).win;
      });
      windowsRead = kept;
      transport.whereToAnswer = answer.whereToAnswer;
      change = answer.change; mine = answer.mine;
      seen = new Date();
      if (/cannot be reached/.test(notice.textContent)) say('');
      onScene(scene);
      onStatus('Live');
      // Pages of rows the person chose, loaded again after a change.
      if (answer.again) makeCall();
      return 100;
    }, function () { unreachable(); return 3000; })
      .catch(function () { return 3000; })
      .then(function (pause) {
        reading = false;
        var soon = again; again = false;
        later(function () { read(soon); }, soon ? 0 : pause);
      });
  }

  // The call an intent asked for (or a page of rows to load again), made
  // as the client's own, one at a time; its raw outcome, or the host's
  // refusal to make it, goes back to what the card shows.
  function makeCall() {
    var number = calls++;
    making = making.then(function () {
      return request('tools/call', { name: 'app__card_call', arguments: { card: name, call: number } });
    }).then(function (answer) {
      var out = (answer && answer.structuredContent) || {};
      if (out.done) return out;
      var failed = !!(answer && answer.isError);
      return tool('app__card_outcome', { card: name, call: number, value: failed ? null : out.result, error: failed ? out : null });
    }, function () {
      // Declined: said once, and not asked again (the next read waits).
      return tool('app__card_outcome', { card: name, call: number, refused: true }).then(function () { return { done: true, declined: true }; });
    }).then(function (done) { read(!done || !done.declined); return done; }, function () { read(false); });
    return making;
  }

  // The app is gone (or the host passes nothing on): the last scene stays
  // drawn, or the last result's windows are drawn, with their time.
  function unreachable() {
    onStatus('The app cannot be reached; trying again.');
    if (seen) { say('The app cannot be reached: its windows as of ' + clock(seen) + '.', 'pv-warn'); return; }
    if (!result) return;
    // The face draws them as read: titles and summaries, nothing to press.
    onScene({ questions: [], appActions: [], words: { regions: [] }, windows: result.windows.map(function (w) {
      var name = String(w.title || w.id);
      return { id: String(w.id), name: name, line: name, summary: String(w.summary || ''), blocks: [], actions: [], questions: [], operable: true };
    }) });
    say('The app cannot be reached: its windows as the agent last read them, at ' + clock(result.at) + '.', 'pv-warn');
  }

  // The host's look and space; a change carries only what changed.
  function apply(next) {
    if (!next || typeof next !== 'object') return;
    Object.keys(next).forEach(function (k) { context[k] = next[k]; });
    if (next.theme === 'dark' || next.theme === 'light') {
      root.setAttribute('data-theme', next.theme);
      root.style.colorScheme = next.theme;
    }
    var styles = next.styles || {};
    var variables = styles.variables || {};
    Object.keys(variables).forEach(function (name) {
      if (name.slice(0, 2) !== '--') return;
      var value = variables[name];
      if (typeof value === 'string') root.style.setProperty(name, value);
      else root.style.removeProperty(name);
    });
    if (styles.css && typeof styles.css.fonts === 'string') {
      document.getElementById('pv-fonts').textContent = styles.css.fonts;
    }
    var inset = next.safeAreaInsets;
    if (inset) {
      ['top', 'right', 'bottom', 'left'].forEach(function (side) {
        root.style.setProperty('--pv-safe-' + side, (Number(inset[side]) || 0) + 'px');
      });
    }
    if (typeof next.locale === 'string') root.lang = next.locale;
    if (next.containerDimensions) fit(next.containerDimensions);
    if (next.displayMode) root.setAttribute('data-display-mode', next.displayMode);
    if (next.displayMode || next.availableDisplayModes) drawModes();
  }

  // A fixed height is filled (the windows scroll inside it) and never
  // reported; a flexible one follows the content.
  function fit(dimensions) {
    var fixed = typeof dimensions.height === 'number';
    root.classList.toggle('pv-fixed', fixed);
    root.style.height = fixed ? dimensions.height + 'px' : '';
    if (fixed) {
      if (sizes) { sizes.disconnect(); sizes = null; }
      clearTimeout(sizeTimer);
    } else if (!sizes && window.ResizeObserver) {
      sizes = new ResizeObserver(measureSoon);
      sizes.observe(document.body);
    }
  }
  function measureSoon() {
    clearTimeout(sizeTimer);
    sizeTimer = setTimeout(function () {
      if (closed || root.classList.contains('pv-fixed')) return;
      // The body's own box: what the card draws, whatever the frame's size.
      var height = Math.ceil(document.body.getBoundingClientRect().height);
      if (Math.abs(height - told) <= 2) return;
      told = height;
      send({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: height } });
    }, 80);
  }

  // Full screen for a whole desk, only where the host lists it; never pip.
  function drawModes() {
    modes.textContent = '';
    var offered = context.availableDisplayModes || [];
    var current = context.displayMode || 'inline';
    var want = current === 'fullscreen' ? 'inline' : 'fullscreen';
    if (offered.indexOf(want) < 0 || offered.indexOf(current) < 0) return;
    var button = document.createElement('button');
    button.type = 'button';
    button.textContent = want === 'fullscreen' ? 'Full screen' : 'Back inline';
    button.addEventListener('click', function () {
      request('ui/request-display-mode', { mode: want }).then(function (answer) {
        apply({ displayMode: (answer && answer.mode) || current });
      }, function () { say('The host kept the card as it is.'); });
    });
    modes.appendChild(button);
  }

  // Everything stops before the answer: timers, the size watch, and every
  // request still waiting (the host is told each is cancelled).
  function teardown(id) {
    timers.forEach(clearTimeout); timers = [];
    clearTimeout(sizeTimer);
    if (sizes) { sizes.disconnect(); sizes = null; }
    Object.keys(waiting).forEach(function (pending) {
      send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: Number(pending), reason: 'The card was closed.' } });
    });
    waiting = {};
    send({ jsonrpc: '2.0', id: id, result: {} });
    closed = true;
  }

  window.addEventListener('message', function (event) {
    if (event.source !== host || closed) return;
    var m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === undefined && m.id !== undefined && waiting[m.id]) {
      var w = waiting[m.id];
      delete waiting[m.id];
      if (m.error) w.reject(m.error); else w.resolve(m.result);
      return;
    }
    if (m.id !== undefined && m.method === 'ui/resource-teardown') { teardown(m.id); return; }
    if (m.id !== undefined && m.method) {
      // ping: nothing to keep, nothing to refuse.
      send({ jsonrpc: '2.0', id: m.id, result: {} });
      return;
    }
    var params = m.params || {};
    if (m.method === 'ui/notifications/host-context-changed') apply(params);
    else if (m.method === 'ui/notifications/tool-cancelled') {
      say('The agent\'s call was cancelled' + (params.reason ? ': ' + params.reason : '') + '. Nothing here was changed by it.', 'pv-warn');
    } else if (m.method === 'ui/notifications/tool-result') {
      var windows = params.structuredContent && params.structuredContent.windows;
      if (Array.isArray(windows)) result = { windows: windows, at: new Date() };
      read(true);
    }
    // tool-input and tool-input-partial: the call may not be approved yet,
    // so the card does nothing with them.
  });

  var transport = {
    canAnswer: false,
    whereToAnswer: 'Only the person answers this, at the app itself.',
    post: function (intent) {
      return tool('app__card_intent', { card: name, intent: intent }).then(function (out) {
        if (out.call) return makeCall();
        read(true);
        return out;
      });
    },
    listen: function (scene, status) {
      onScene = scene;
      onStatus = status;
      request('ui/initialize', {
        appInfo: { name: 'purview-card', version: '1' },
        appCapabilities: { availableDisplayModes: ['inline', 'fullscreen'] },
        protocolVersion: '2026-01-26'
      }).then(function (answer) {
        apply((answer && answer.hostContext) || {});
        if (!context.containerDimensions) fit({});
        send({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
        read(true);
      }, function () { status('The host did not start the card.'); });
    }
  };
  window.PurviewTransport = transport;
})();
